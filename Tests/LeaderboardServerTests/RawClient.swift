import Glibc
@testable import LeaderboardServer

/// A blocking loopback TCP client that speaks raw bytes, for poking the server.
final class RawClient {
    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: [UInt8]
    }

    enum Failure: Error { case connect(Int32), timedOut, closed(received: [UInt8]), reset, malformed }

    let fd: Int32
    private var pending: [UInt8] = []

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = port.bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        if rc != 0 { throw Failure.connect(errno) }  // deinit closes fd (closing it here too closed it twice)
    }

    deinit { close(fd) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Waits up to `timeout` for bytes; nil when the peer closed, throws on timeout or reset.
    func receiveSome(timeout: Duration = .seconds(10)) throws -> [UInt8]? {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + timeout
        while true {
            if ContinuousClock.now >= deadline { throw Failure.timedOut }
            let r = poll(&p, 1, milliseconds(until: deadline))
            if r == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 { if errno == ECONNRESET { throw Failure.reset }; if errno == EINTR { continue }; throw Failure.malformed }
            if n == 0 { return nil }
            return Array(chunk[0..<n])
        }
    }

    /// Reads one response with a Content-Length body (or none for 304).
    func readResponse(timeout: Duration = .seconds(10), head: Bool = false) throws -> Response {
        while true {
            if let end = find([13, 10, 13, 10], in: pending) {
                let text = String(decoding: pending[0..<end], as: UTF8.self)
                var lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else { throw Failure.malformed }
                var headers = HTTPHeaders()
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { throw Failure.malformed }
                    headers.add(String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
                }
                let length = (head || status == 304) ? 0 : Int(headers["Content-Length"] ?? "0") ?? 0
                while pending.count < end + 4 + length {
                    guard let more = try receiveSome(timeout: timeout) else { throw Failure.closed(received: pending) }
                    pending += more
                }
                let body = Array(pending[(end + 4)..<(end + 4 + length)])
                pending.removeFirst(end + 4 + length)
                return Response(status: status, headers: headers, body: body)
            }
            guard let more = try receiveSome(timeout: timeout) else { throw Failure.closed(received: pending) }
            pending += more
        }
    }

    /// Reads until the server closes; returns everything received.
    func readToEnd(timeout: Duration = .seconds(10)) throws -> [UInt8] {
        var all = pending
        pending = []
        while let more = try receiveSome(timeout: timeout) { all += more }
        return all
    }

    /// Reads until `needle` has arrived (after a streaming response's head, say); returns the
    /// text up to and including it, keeping the rest for the next read.
    func readUntil(_ needle: String, timeout: Duration = .seconds(10)) throws -> String {
        let bytes = Array(needle.utf8)
        while true {
            if let at = find(bytes, in: pending) {
                let text = String(decoding: pending[0..<(at + bytes.count)], as: UTF8.self)
                pending.removeFirst(at + bytes.count)
                return text
            }
            guard let more = try receiveSome(timeout: timeout) else { throw Failure.closed(received: pending) }
            pending += more
        }
    }

    /// What has been received and not yet read, waiting up to `timeout` for more.
    func drainPending(waiting timeout: Duration) throws -> String {
        if let more = try? receiveSome(timeout: timeout) { pending += more }
        defer { pending = [] }
        return String(decoding: pending, as: UTF8.self)
    }

    private func find(_ needle: [UInt8], in hay: [UInt8]) -> Int? {
        guard hay.count >= needle.count else { return nil }
        for i in 0...(hay.count - needle.count) where hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
        return nil
    }
}

func get(_ path: String, _ extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(extra)\r\n"
}
