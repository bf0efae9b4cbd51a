import Glibc
import Synchronization
import Testing
import WidgetTestSupport
@testable import LeaderboardServer

private func startServer(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> (HTTPServer, UInt16) {
    var config = HTTPServerConfiguration()
    configure(&config)
    let server = HTTPServer(configuration: config)
    server.route("/hello") { _ in .text("hello\n") }
    server.route("/heal", methods: ["POST"], maxBodyBytes: 16) { request in HTTPResponse(body: request.body) }
    return (server, try server.start())
}

private let oneMebibyte = 1024 * 1024

/// A connected, non-blocking pair of sockets (for the descriptor-reuse test).
private func socketPair() throws -> (Int32, Int32) {
    var fds: [Int32] = [-1, -1]
    try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &fds) == 0)
    return (fds[0], fds[1])
}

@Suite("HTTP server against hostile clients")
struct HTTPServerLimitsTests {
    @Test("a 1 MB body to a route that takes none is answered 413 before any of it is sent, then closed")
    func bodyToBodilessRoute() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        // Headers only: the server must not wait for the megabyte it was promised.
        client.send("GET /hello HTTP/1.1\r\nHost: x\r\nContent-Length: \(oneMebibyte)\r\n\r\n")
        let start = ContinuousClock.now
        let answer = try client.readResponse(timeout: .seconds(5))
        #expect(answer.status == 413)
        #expect(answer.headers["Connection"] == "close")
        #expect(ContinuousClock.now - start < .seconds(3))
        #expect(try client.readToEnd(timeout: .seconds(5)).isEmpty)
    }

    @Test("a client that streams its 1 MB body anyway still reads the 413, then the close")
    func streamingBody() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        _ = fcntl(client.fd, F_SETFL, fcntl(client.fd, F_GETFL) | O_NONBLOCK)
        client.send("GET /hello HTTP/1.1\r\nHost: x\r\nContent-Length: \(oneMebibyte)\r\n\r\n")
        // As much of the body as the socket takes without waiting; the rest is never sent.
        let body = [UInt8](repeating: 0x61, count: oneMebibyte)
        _ = body.withUnsafeBytes { send(client.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        let start = ContinuousClock.now
        #expect(try client.readResponse(timeout: .seconds(5)).status == 413)
        #expect(ContinuousClock.now - start < .seconds(3))
    }

    @Test("a chunked body to a route that takes none is answered 413 at once")
    func chunkedToBodilessRoute() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("POST /hello HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n100000\r\n")
        let start = ContinuousClock.now
        #expect(try client.readResponse(timeout: .seconds(5)).status == 413)
        #expect(ContinuousClock.now - start < .seconds(3))
    }

    @Test("both Transfer-Encoding and Content-Length: 400 (the framing is ambiguous)")
    func ambiguousFraming() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("POST /heal HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\nabc")
        #expect(try client.readResponse().status == 400)
    }

    @Test("a route's declared body limit: up to it is read and handed over, one byte more is 413")
    func perRouteLimit() throws {
        let (server, port) = try startServer()
        defer { server.stop() }
        let fits = try RawClient(port: port)
        fits.send("POST /heal HTTP/1.1\r\nHost: x\r\nContent-Length: 16\r\n\r\n" + String(repeating: "h", count: 16))
        let echoed = try fits.readResponse()
        #expect(echoed.status == 200 && echoed.body == Array(String(repeating: "h", count: 16).utf8))
        let over = try RawClient(port: port)
        over.send("POST /heal HTTP/1.1\r\nHost: x\r\nContent-Length: 17\r\n\r\n")
        #expect(try over.readResponse().status == 413)
        // A body on a method the route does not take is not read either.
        let wrongMethod = try RawClient(port: port)
        wrongMethod.send("GET /heal HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\n")
        #expect(try wrongMethod.readResponse().status == 413)
    }

    @Test("a route cannot take more than the configuration's ceiling")
    func routeLimitCapped() throws {
        let (server, port) = try startServer { $0.maxBodyBytes = 8 }
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("POST /heal HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n")
        #expect(try client.readResponse().status == 413)
    }

    @Test("over maxConnections a new client gets 503 with Retry-After at once; a freed slot serves again")
    func connectionCap() throws {
        let (server, port) = try startServer { $0.maxConnections = 2 }
        defer { server.stop() }
        #expect(server.connectionLimit == 2)
        var idle = [try RawClient(port: port), try RawClient(port: port)]
        // Wait until both hold their slot (accepting is asynchronous).
        let deadline = ContinuousClock.now + .seconds(10)
        while server.openConnections < 2, ContinuousClock.now < deadline { _ = poll(nil, 0, 10) }
        let refused = try RawClient(port: port)
        let answer = try refused.readResponse(timeout: .seconds(5))
        #expect(answer.status == 503 && answer.headers["Retry-After"] == "1")
        #expect(try refused.readToEnd(timeout: .seconds(5)).isEmpty)
        idle.removeAll()
        var status = 0
        while status != 200, ContinuousClock.now < deadline {
            let client = try RawClient(port: port)
            client.send(get("/hello"))
            status = (try? client.readResponse(timeout: .seconds(5)).status) ?? 0
        }
        #expect(status == 200)
    }

    @Test("with three quarters of the connections in use, an idle one is closed to make room; a client mid-request is not")
    func evictsIdle() throws {
        let (server, port) = try startServer {
            $0.maxConnections = 4
            $0.evictIdleAfter = .milliseconds(200)
        }
        defer { server.stop() }
        let busy = try RawClient(port: port)
        busy.send("GET /hello HTTP/1.1\r\n")   // half a request: never evicted
        let idle = [try RawClient(port: port), try RawClient(port: port)]
        let deadline = ContinuousClock.now + .seconds(10)
        while server.openConnections < 3, ContinuousClock.now < deadline { _ = poll(nil, 0, 10) }
        _ = poll(nil, 0, 400)   // the idle ones pass evictIdleAfter

        let newcomer = try RawClient(port: port)   // the 4th of 4: over three quarters
        newcomer.send(get("/hello"))
        #expect(try newcomer.readResponse().status == 200)
        // Exactly one idle connection is closed by the server, without an answer.
        var closed = 0
        for client in idle {
            do {
                if try client.receiveSome(timeout: .seconds(2)) == nil { closed += 1 }
            } catch {}   // timed out: still open
        }
        #expect(closed == 1)
        busy.send("Host: x\r\n\r\n")
        #expect(try busy.readResponse().status == 200)
    }

    @Test("with three quarters of the connections in use, a client trickling its headers is cut to make room")
    func evictsSlowloris() throws {
        let (server, port) = try startServer {
            $0.maxConnections = 4
            $0.evictIdleAfter = .seconds(60)
            $0.evictSlowRequestAfter = .milliseconds(200)
        }
        defer { server.stop() }
        let slow = [try RawClient(port: port), try RawClient(port: port), try RawClient(port: port)]
        for client in slow { client.send("GET /hello HTTP/1.1\r\nX-A: 1\r\n") }
        let deadline = ContinuousClock.now + .seconds(10)
        while server.openConnections < 3, ContinuousClock.now < deadline { _ = poll(nil, 0, 10) }
        _ = poll(nil, 0, 400)
        for client in slow { client.send("X-B: 2\r\n") }   // still trickling

        let newcomer = try RawClient(port: port)
        newcomer.send(get("/hello"))
        #expect(try newcomer.readResponse().status == 200)
        var cut = 0
        for client in slow {
            do {
                if try client.receiveSome(timeout: .seconds(2)) == nil { cut += 1 }
            } catch {}
        }
        #expect(cut == 1)
    }

    @Test("a client reading its answer a little at a time is cut off after about twice writeTimeout")
    func slowReader() throws {
        var config = HTTPServerConfiguration()
        config.writeTimeout = .milliseconds(300)
        let server = HTTPServer(configuration: config)
        let big = [UInt8](repeating: 0x62, count: 32 * oneMebibyte)
        server.route("/big") { _ in HTTPResponse(body: big) }
        let port = try server.start()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send(get("/big"))
        // 4 KiB every 5 ms or so: every send the server makes progresses a little, so the
        // per-send timeout never fires; 32 MB would take most of a minute. The whole answer is
        // allowed 300 ms (a partial send may run up to that more), then the connection is reset.
        let start = ContinuousClock.now
        var received = 0
        var buffer = [UInt8](repeating: 0, count: 4 * 1024)
        while ContinuousClock.now - start < .seconds(10) {
            let n = buffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { break }
            received += n
            _ = poll(nil, 0, 5)
        }
        #expect(received < big.count)
        #expect(ContinuousClock.now - start < .seconds(4))
    }

    @Test("the connection limit stays below the descriptor limit, leaving a quarter (at least 32) spare",
          arguments: [(64, 1024, 32), (256, 1024, 192), (1024, 1024, 768), (20_000, 1024, 1024),
                      (10, 1024, 1), (0, 1024, 1), (rlim_t.max, 1024, 1024)] as [(rlim_t, Int, Int)])
    func connectionLimit(descriptors: rlim_t, configured: Int, expected: Int) {
        #expect(HTTPServer.connectionLimit(configured: configured, descriptorLimit: descriptors) == expected)
    }

    @Test("out of resources the accept loop backs off: 10 ms, doubling, at most 500 ms")
    func backoff() {
        var pauses: [Duration] = []
        var backoff = Duration.zero
        for _ in 0..<8 {
            backoff = HTTPServer.longer(backoff)
            pauses.append(backoff)
        }
        #expect(pauses.map { $0 / .milliseconds(1) } == [10, 20, 40, 80, 160, 320, 500, 500])
    }

    @Test("a socket shut down after its close leaves alone the socket that reused its number")
    func shutdownAfterCloseIsHarmless() throws {
        let (a, b) = try socketPair()
        defer { close(b) }
        // Far above what the test process uses, so the number is ours to watch being reused
        // (F_DUPFD takes the lowest free number at or above it and never closes anything).
        let number = fcntl(a, F_DUPFD_CLOEXEC, 900)
        close(a)
        try #require(number >= 900)
        let socket = ConnectionSocket(fd: number)
        socket.close()
        #expect(socket.isClosed)

        let (c, d) = try socketPair()
        defer { close(c); close(d) }
        let reused = fcntl(c, F_DUPFD_CLOEXEC, number)
        defer { close(reused) }
        try #require(reused == number, "another thread took descriptor \(number); rerun")

        socket.shutdown()   // what stop() does for a connection that ended meanwhile
        var byte: UInt8 = 42
        #expect(send(reused, &byte, 1, Int32(MSG_NOSIGNAL)) == 1, "the unrelated socket was shut down")
        var got: UInt8 = 0
        #expect(recv(d, &got, 1, 0) == 1 && got == 42)

        // The hazard itself, for contrast: the bare number is shut down whoever owns it now.
        _ = shutdown(number, Int32(SHUT_RDWR))
        #expect(send(reused, &byte, 1, Int32(MSG_NOSIGNAL)) == -1)
    }

    @Test("stop shuts down open connections through their owners and waits for them")
    func stopCutsOpenConnections() throws {
        let (server, port) = try startServer()
        var clients: [RawClient] = []
        for _ in 0..<20 { clients.append(try RawClient(port: port)) }
        let deadline = ContinuousClock.now + .seconds(10)
        while server.openConnections < 20, ContinuousClock.now < deadline { _ = poll(nil, 0, 10) }
        // Half of them end on their own while stop() runs.
        for client in clients.prefix(10) { client.send(get("/hello", "Connection: close\r\n")) }
        server.stop()
        #expect(server.openConnections == 0)
        for client in clients.suffix(10) { #expect(try client.readToEnd(timeout: .seconds(5)).isEmpty) }
    }
}
