import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Figure 5 (throughput): one keep-alive connection on raw sockets to the loopback
/// leaderboard server, GET /leaderboard in a loop: full answers (200) and conditional ones
/// (If-None-Match with the current ETag: 304).
enum NetworkBench {
    static func measure(into report: Report, harness: Harness, duration: Double) {
        guard let client = HTTPClient(port: harness.port) else {
            report.notes.append("5: could not connect to the loopback server")
            return
        }
        defer { client.close() }
        guard let first = client.get(etag: nil), let etag = first.etag else { return }
        for (label, tag, expected) in [("200", nil as String?, 200), ("304", etag as String?, 304)] {
            var count = 0, wrong = 0
            let start = monotonicNanos()
            while seconds(since: start) < duration {
                guard let answer = client.get(etag: tag) else { wrong += 1; break }
                if answer.status != expected { wrong += 1 }
                count += 1
            }
            let elapsed = seconds(since: start)
            report.add(Figure(section: "5", name: "requests/s \(label)", value: Double(count) / elapsed, unit: "req/s",
                              workload: "one keep-alive connection, GET /leaderboard\(tag == nil ? "" : " If-None-Match") in a loop, \(count) requests (\(first.bodyBytes) B body), \(wrong) unexpected",
                              target: nil, met: nil))
        }
    }
}

/// A minimal HTTP/1.1 client: one connection, Content-Length bodies only.
final class HTTPClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    init?(port: UInt16) {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let ok = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard ok == 0 else { Glibc.close(fd); return nil }
    }

    func close() { Glibc.close(fd) }

    struct Answer { var status: Int; var etag: String?; var bodyBytes: Int }

    func get(etag: String?) -> Answer? {
        var request = "GET /leaderboard HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        if let etag { request += "If-None-Match: \(etag)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else { return nil }
        var headerEnd: Int?
        while headerEnd == nil {
            headerEnd = find([13, 10, 13, 10])
            if headerEnd == nil && !fill() { return nil }
        }
        let head = String(decoding: buffer[0..<headerEnd!], as: UTF8.self)
        let lines = head.split(separator: "\r\n")
        let status = Int(lines.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var length = 0
        var tag: String?
        for line in lines.dropFirst() {
            let parts = line.split(separator: ":", maxSplits: 1)
            guard parts.count == 2 else { continue }
            let name = parts[0].lowercased(), value = String(parts[1].drop { $0 == " " })
            if name == "content-length" { length = Int(value) ?? 0 }
            if name == "etag" { tag = value }
        }
        let total = headerEnd! + 4 + length
        while buffer.count < total { if !fill() { return nil } }
        buffer.removeFirst(total)
        return Answer(status: status, etag: tag, bodyBytes: length)
    }

    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16_384)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    private func find(_ needle: [UInt8]) -> Int? {
        guard buffer.count >= needle.count else { return nil }
        for i in 0...(buffer.count - needle.count) where buffer[i] == needle[0] && Array(buffer[i..<(i + needle.count)]) == needle {
            return i
        }
        return nil
    }
}
