import Glibc

/// Serves one accepted connection on its own thread until the client closes, a limit or
/// deadline is hit, or the server stops.
final class HTTPConnection {
    private enum ReadResult {
        case request(HTTPRequest)
        /// Answer with this status and close (the stream cannot be resynchronised).
        case reject(Int, method: String, target: String)
        case timedOut
        case closed
    }

    private enum FillResult { case data, closed, timedOut }

    private let socket: ConnectionSocket
    private var fd: Int32 { socket.fd }
    private let remoteAddress: String
    private let server: HTTPServer
    private var config: HTTPServerConfiguration { server.configuration }
    private var buffer: [UInt8] = []

    init(socket: ConnectionSocket, remoteAddress: String, server: HTTPServer) {
        self.socket = socket
        self.remoteAddress = remoteAddress
        self.server = server
    }

    func run() {
        while !server.isStopping {
            if buffer.isEmpty {
                guard socket.enter(.idle(since: .now)), fill(until: .now + config.idleTimeout) == .data else { return }
            }
            let started = ContinuousClock.now
            guard socket.enter(.reading(since: started)) else { return }
            let read = readRequest(deadline: started + config.requestTimeout)
            guard socket.enter(.answering) else { return }
            switch read {
            case .request(let request):
                guard respond(to: request, started: started) else { return }
            case .reject(let status, let method, let target):
                let bytes = Array(HTTPResponse.reasonPhrase(for: status).utf8) + [10]
                _ = transmit(serialize(status: status, headers: HTTPHeaders(), body: bytes, keepAlive: false, head: false))
                log(method: method, target: target, status: status, bytes: bytes.count, started: started)
                discardBeforeClose()
                return
            case .timedOut:
                let bytes = Array("Request Timeout\n".utf8)
                _ = transmit(serialize(status: 408, headers: HTTPHeaders(), body: bytes, keepAlive: false, head: false))
                log(method: "-", target: "-", status: 408, bytes: bytes.count, started: started)
                return
            case .closed:
                return
            }
        }
    }

    /// After an answer that leaves the client's request unread: stop sending, then read and
    /// drop what is still arriving, briefly and up to a bound, before the caller closes.
    ///
    /// Closing a socket with unread input sends a reset, and a reset can destroy the answer in
    /// the client's buffers before it is read. Bounded (64 KiB, 500 ms, one small buffer), so a
    /// client streaming a large body costs neither memory nor a thread for long.
    private func discardBeforeClose() {
        _ = shutdown(fd, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .milliseconds(500)
        var dropped = 0
        var scratch = [UInt8](repeating: 0, count: 8 * 1024)
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while dropped < 64 * 1024 {
            let wait = milliseconds(until: deadline)
            if wait == 0 { return }
            let r = poll(&p, 1, wait)
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { return }
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return }
            dropped += n
        }
    }

    // MARK: - Reading

    /// Reads more bytes into `buffer`, waiting at most until `deadline`.
    private func fill(until deadline: ContinuousClock.Instant) -> FillResult {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        while true {
            let wait = milliseconds(until: deadline)
            if wait == 0 && ContinuousClock.now >= deadline { return .timedOut }
            let r = poll(&p, 1, wait)
            if r < 0 {
                if errno == EINTR { continue }
                return .closed
            }
            if r == 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return .closed }
            buffer.append(contentsOf: chunk[0..<n])
            return .data
        }
    }

    private func readRequest(deadline: ContinuousClock.Instant) -> ReadResult {
        // Find the end of the header section, enforcing the limits as bytes arrive.
        var requestLineEnd: Int?   // index just past the request line's "\n"
        var lineStart = 0
        var scanned = 0
        var headerEnd: Int?
        var headerLines: [ArraySlice<UInt8>] = []
        var requestLine: ArraySlice<UInt8> = []
        while headerEnd == nil {
            while scanned < buffer.count, headerEnd == nil {
                if buffer[scanned] == 10 {
                    var line = buffer[lineStart..<scanned]
                    if line.last == 13 { line = line.dropLast() }
                    if requestLineEnd == nil {
                        requestLine = line
                        requestLineEnd = scanned + 1
                        if line.count > config.maxRequestLineBytes { return .reject(414, method: "-", target: "-") }
                    } else if line.isEmpty {
                        headerEnd = scanned + 1
                    } else {
                        headerLines.append(line)
                        if headerLines.count > config.maxHeaderCount { return .reject(431, method: "-", target: "-") }
                    }
                    lineStart = scanned + 1
                }
                scanned += 1
            }
            if headerEnd != nil { break }
            if requestLineEnd == nil, buffer.count > config.maxRequestLineBytes { return .reject(414, method: "-", target: "-") }
            if let start = requestLineEnd, buffer.count - start > config.maxHeaderBytes { return .reject(431, method: "-", target: "-") }
            switch fill(until: deadline) {
            case .data: continue
            case .closed: return .closed
            case .timedOut: return .timedOut
            }
        }
        guard let headerEnd, let requestLineEnd else { return .closed }
        if headerEnd - requestLineEnd > config.maxHeaderBytes { return .reject(431, method: "-", target: "-") }

        // Request line: METHOD SP target SP HTTP/x.y
        let parts = requestLine.split(separator: 32, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, parts[0].allSatisfy(Self.isTokenByte),
              parts[1].first == UInt8(ascii: "/"), parts[1].allSatisfy({ $0 > 32 && $0 < 127 })
        else { return .reject(400, method: "-", target: "-") }
        let method = String(decoding: parts[0], as: UTF8.self)
        let target = String(decoding: parts[1], as: UTF8.self)
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            return .reject(version.hasPrefix("HTTP/") ? 505 : 400, method: method, target: target)
        }

        var headers = HTTPHeaders()
        for line in headerLines {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex,
                  line[line.startIndex..<colon].allSatisfy(Self.isTokenByte)
            else { return .reject(400, method: method, target: target) }
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
            headers.add(String(decoding: line[line.startIndex..<colon], as: UTF8.self),
                        String(Substring(value).trimmingSpaces))
        }
        if version == "HTTP/1.1" && headers["Host"] == nil { return .reject(400, method: method, target: target) }

        // The body is bounded by its route, decided before a byte of it is read: a route that
        // takes none (the default) answers 413 at once, whatever the client has yet to send.
        let bodyLimit = server.lookup(String(target.prefix { $0 != "?" }))
            .map { $0.methods.contains(method) ? $0.maxBodyBytes : 0 } ?? 0
        let lengths = Set(headers.values(for: "Content-Length"))
        if headers["Transfer-Encoding"] != nil {
            // Both framings at once is how requests are smuggled past proxies: refuse.
            if !lengths.isEmpty { return .reject(400, method: method, target: target) }
            return .reject(bodyLimit == 0 ? 413 : 501, method: method, target: target)
        }
        var length = 0
        if !lengths.isEmpty {
            guard lengths.count == 1, let text = lengths.first, !text.isEmpty, text.utf8.count <= 18,
                  text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let value = Int(text)
            else { return .reject(400, method: method, target: target) }
            length = value
        }
        if length > bodyLimit { return .reject(413, method: method, target: target) }
        while buffer.count - headerEnd < length {
            switch fill(until: deadline) {
            case .data: continue
            case .closed: return .closed
            case .timedOut: return .timedOut
            }
        }
        let body = Array(buffer[headerEnd..<(headerEnd + length)])
        buffer.removeFirst(headerEnd + length)
        return .request(HTTPRequest(method: method, target: target, version: version, headers: headers,
                                    body: body, remoteAddress: remoteAddress))
    }

    private static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(b)
        }
    }

    // MARK: - Answering

    /// Sends one answer, within `writeTimeout` in all (see `sendAll`).
    ///
    /// An answer abandoned half-way is useless to the client: the close that follows resets the
    /// connection (linger 0) instead of leaving megabytes queued for a client too slow to read.
    private func transmit(_ bytes: [UInt8]) -> Bool {
        if sendAll(fd, bytes, within: config.writeTimeout) { return true }
        var reset = linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &reset, socklen_t(MemoryLayout<linger>.size))
        return false
    }

    /// Answers one request; returns whether the connection stays open.
    private func respond(to request: HTTPRequest, started: ContinuousClock.Instant) -> Bool {
        let connectionTokens = request.headers.values(for: "Connection").joined(separator: ",").lowercased()
        var keepAlive = request.version == "HTTP/1.1"
            ? !connectionTokens.contains("close")
            : connectionTokens.contains("keep-alive")
        if server.isStopping { keepAlive = false }
        let head = request.method == "HEAD"

        guard let route = server.lookup(request.path) else {
            let body = Array("Not Found\n".utf8)
            let ok = transmit(serialize(status: 404, headers: HTTPHeaders([("Content-Type", "text/plain")]), body: body, keepAlive: keepAlive, head: head))
            log(method: request.method, target: request.target, status: 404, bytes: body.count, started: started)
            return ok && keepAlive
        }
        guard route.methods.contains(request.method) else {
            let body = Array("Method Not Allowed\n".utf8)
            let allow = HTTPHeaders([("Allow", route.methods.sorted().joined(separator: ", ")), ("Content-Type", "text/plain")])
            let ok = transmit(serialize(status: 405, headers: allow, body: body, keepAlive: keepAlive, head: head))
            log(method: request.method, target: request.target, status: 405, bytes: body.count, started: started)
            return ok && keepAlive
        }

        let number = server.nextRequestNumber()
        let faults = config.faults
        let fault = faults.fault(forRequest: number)
        if faults.delay > .zero { server.pause(faults.delay) }

        var response: HTTPResponse
        switch fault {
        case .serverError:
            response = .text("Internal Server Error (injected)\n", status: 500)
        case .tooManyRequests:
            response = .text("Too Many Requests (injected)\n", status: 429)
            switch faults.retryAfter {
            case .seconds(let s): response.headers.set("Retry-After", String(s))
            case .date(let ahead): response.headers.set("Retry-After", HTTPDate.format(secondsSince1970: HTTPDate.nowSecondsSince1970() + ahead))
            }
        case .connectionReset:
            var off = linger(l_onoff: 1, l_linger: 0)
            setsockopt(fd, SOL_SOCKET, SO_LINGER, &off, socklen_t(MemoryLayout<linger>.size))
            log(method: request.method, target: request.target, status: 0, bytes: 0, started: started, fault: fault)
            return false
        default:
            response = route.handler(request)
        }

        if let stream = response.stream, response.status == 200 {
            // A long-lived answer: the head now, then the route's stream until it returns; the
            // body ends with the connection (no length, `Connection: close`).
            let wire = serialize(status: 200, headers: response.headers, body: [], keepAlive: false, head: true, length: false)
            guard transmit(wire) else { return false }
            if !head { stream(ResponseStream(fd: fd, writeTimeout: config.writeTimeout)) }
            log(method: request.method, target: request.target, status: 200, bytes: 0, started: started, fault: fault)
            return false
        }

        var status = response.status
        var body = response.body
        var headers = response.headers
        if let etag = response.etag, fault == .none || fault == .truncatedBody {
            headers.set("ETag", etag)
            if status == 200, request.method == "GET" || head, request.ifNoneMatchMatches(etag) {
                status = 304
                body = []
            }
        }
        if fault == .garbageBody { body = faults.garbage(count: body.count, forRequest: number) }

        if fault == .truncatedBody && status != 304 && !head {
            let wire = serialize(status: status, headers: headers, body: body, keepAlive: false, head: true)
            _ = transmit(wire + body.prefix(body.count / 2))
            log(method: request.method, target: request.target, status: status, bytes: body.count / 2, started: started, fault: fault)
            return false
        }
        let ok = transmit(serialize(status: status, headers: headers, body: body, keepAlive: keepAlive, head: head))
        log(method: request.method, target: request.target, status: status, bytes: head ? 0 : body.count, started: started, fault: fault)
        return ok && keepAlive
    }

    /// The wire form of an answer. With `head`, the body is left out but its length announced.
    private func serialize(status: Int, headers: HTTPHeaders, body: [UInt8], keepAlive: Bool, head: Bool,
                           length: Bool = true) -> [UInt8] {
        var text = "HTTP/1.1 \(status) \(HTTPResponse.reasonPhrase(for: status))\r\n"
        for field in headers {
            let name = field.name.lowercased()
            if name == "content-length" || name == "connection" || name == "transfer-encoding" { continue }
            text += "\(field.name): \(field.value)\r\n"
        }
        if length && status != 304 && status != 204 { text += "Content-Length: \(body.count)\r\n" }
        text += keepAlive ? "Connection: keep-alive\r\n" : "Connection: close\r\n"
        text += "\r\n"
        var bytes = Array(text.utf8)
        if !head && status != 304 && status != 204 { bytes += body }
        return bytes
    }

    private func log(method: String, target: String, status: Int, bytes: Int, started: ContinuousClock.Instant, fault: Fault = .none) {
        server.log(AccessLogEntry(remoteAddress: remoteAddress, method: method, target: target, status: status,
                                  bytesSent: bytes, duration: started.duration(to: .now), fault: fault))
    }
}
