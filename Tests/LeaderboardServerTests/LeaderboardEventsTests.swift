import Glibc
import Testing
import WidgetTestSupport
@testable import LeaderboardServer

private func startService(_ configure: (inout LeaderboardServiceConfiguration) -> Void = { _ in }) throws -> (LeaderboardService, UInt16) {
    var config = LeaderboardServiceConfiguration(port: 0)
    config.seed = 7
    config.tickSeconds = 3600   // ticks only when a test calls advance
    configure(&config)
    let service = LeaderboardService(configuration: config)
    return (service, try service.start())
}

/// Opens `GET /events` and reads the head and the `retry:` preamble.
private func openStream(_ port: UInt16, lastEventID: String? = nil) throws -> RawClient {
    let client = try RawClient(port: port)
    client.send(get("/events", lastEventID.map { "Last-Event-ID: \($0)\r\n" } ?? ""))
    let head = try client.readResponse()
    #expect(head.status == 200)
    #expect(head.headers["Content-Type"] == "text/event-stream")
    #expect(head.headers["Content-Length"] == nil)
    #expect(try client.readUntil("\n\n") == "retry: 2000\n\n")
    return client
}

private func post(_ path: String, body: String = "") -> String {
    "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)"
}

/// Waits (bounded) until `condition` holds.
private func eventually(_ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        usleep(2000)
    }
    return condition()
}

@Suite("Leaderboard server: GET /events and POST /heroes/NAME/heal")
struct LeaderboardEventsTests {
    @Test("each change of the board is one `board` event whose id is the board's version")
    func eventPerChange() throws {
        let (service, port) = try startService()
        defer { service.stop() }
        #expect(service.version == 1)
        let client = try openStream(port)
        #expect(service.openStreams == 1, "subscribed before its preamble was sent")
        service.advance(ticks: 1)
        let event = try client.readUntil("\n\n")
        let updated = ISO8601.format(secondsSince1970: service.game.updated)
        #expect(event == "event: board\nid: 2\ndata: {\"version\": 2, \"updated\": \"\(updated)\"}\n\n")
        service.advance(ticks: 1)
        let second = try client.readUntil("\n\n")
        #expect(second.hasPrefix("event: board\nid: 3\n"), "\(second)")
        #expect(service.version == 3)
    }

    @Test("a client whose Last-Event-ID is not the board's version gets the board at once; a current one waits")
    func lastEventID() throws {
        let (service, port) = try startService()
        defer { service.stop() }
        service.advance(ticks: 1)
        service.advance(ticks: 1)
        #expect(service.version == 3)
        let stale = try openStream(port, lastEventID: "2")
        #expect(try stale.readUntil("\n\n").hasPrefix("event: board\nid: 3\n"))
        // From an earlier run of the server, whose counter had gone further.
        let otherRun = try openStream(port, lastEventID: "90")
        #expect(try otherRun.readUntil("\n\n").hasPrefix("event: board\nid: 3\n"))
        let current = try openStream(port, lastEventID: "3")
        let fresh = try openStream(port)
        #expect(try current.drainPending(waiting: .milliseconds(300)) == "")
        #expect(try fresh.drainPending(waiting: .milliseconds(10)) == "")
        service.advance(ticks: 1)
        #expect(try current.readUntil("\n\n").hasPrefix("event: board\nid: 4\n"))
        #expect(try fresh.readUntil("\n\n").hasPrefix("event: board\nid: 4\n"))
    }

    @Test("with --keepalive 0 a quiet stream gets nothing; with 1 a comment each second")
    func keepalive() throws {
        let (quiet, quietPort) = try startService()
        defer { quiet.stop() }
        let silent = try openStream(quietPort)
        #expect(try silent.drainPending(waiting: .milliseconds(1500)) == "")

        let (chatty, chattyPort) = try startService { $0.keepaliveSeconds = 1 }
        defer { chatty.stop() }
        let client = try openStream(chattyPort)
        #expect(try client.readUntil("\n\n", timeout: .seconds(5)) == ": keep-alive\n\n")
    }

    @Test("past --max-streams a stream is answered 503 with Retry-After; a closed stream frees its place")
    func maxStreams() throws {
        let (service, port) = try startService { $0.maxStreams = 2 }
        defer { service.stop() }
        var first: RawClient? = try openStream(port)
        let second = try openStream(port)
        let third = try RawClient(port: port)
        third.send(get("/events"))
        let refused = try third.readResponse()
        #expect(refused.status == 503)
        #expect(refused.headers["Retry-After"] != nil)
        #expect(first != nil)
        first = nil
        #expect(eventually { service.openStreams == 1 })
        let again = try openStream(port)
        withExtendedLifetime((second, again)) {}
    }

    @Test("clients that never read hold no place for good: past --max-streams a newcomer takes the oldest stream's place once it is old enough, and that stream ends (issue 22, item 10)")
    func takeover() throws {
        let (service, port) = try startService { $0.maxStreams = 2; $0.streamTakeoverAfter = .zero }
        defer { service.stop() }
        // Two clients that send the request and never read a byte.
        let hogs = try (0..<2).map { _ in try RawClient(port: port) }
        for hog in hogs {
            hog.send(get("/events"))
            #expect(eventually { service.openStreams == hogs.firstIndex { $0 === hog }! + 1 })
        }
        let newcomer = try openStream(port)
        #expect(service.openStreams == 2)
        // The oldest was ended: its connection closes after what it was sent.
        let rest = String(decoding: try hogs[0].readToEnd(timeout: .seconds(5)), as: UTF8.self)
        #expect(rest.hasPrefix("HTTP/1.1 200") && rest.hasSuffix("retry: 2000\n\n"), "\(rest)")
        // The newcomer is served as any stream.
        service.advance(ticks: 1)
        #expect(try newcomer.readUntil("\n\n").hasPrefix("event: board\nid: 2\n"))
        withExtendedLifetime(hogs) {}
    }

    @Test("an event stream's socket has TCP keep-alive probes on, so a client that vanished without closing is found by the kernel")
    func keepaliveProbes() throws {
        let (service, port) = try startService()
        defer { service.stop() }
        let client = try openStream(port)
        #expect(service.openStreams == 1, "subscribed before its preamble was sent")
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(client.fd, $0, &length) }
        }
        let clientPort = UInt16(bigEndian: address.sin_port)
        // /proc/net/tcp: the server's end (local port = the service's, remote = the client's);
        // its timer field "tr" is 2 while a keep-alive timer is armed.
        let table = try FileContents.text(at: "/proc/net/tcp")
        func hex(_ port: UInt16) -> String {
            let digits = String(port, radix: 16, uppercase: true)
            return ":" + String(repeating: "0", count: 4 - digits.count) + digits
        }
        let wanted = hex(port), peer = hex(clientPort)
        let row = try #require(table.split(separator: "\n").map { $0.split(separator: " ") }
            .first { $0.count > 5 && $0[1].hasSuffix(wanted) && $0[2].hasSuffix(peer) })
        #expect(row[5].hasPrefix("02:"), "\(row)")
    }

    @Test("stop() ends open streams: the client sees the connection close")
    func stopEndsStreams() throws {
        let (service, port) = try startService()
        let client = try openStream(port)
        let started = ContinuousClock.now
        service.stop()
        #expect(try client.readToEnd(timeout: .seconds(5)).isEmpty)
        #expect(started.duration(to: .now) < .seconds(3))
    }

    @Test("POST /heroes/NAME/heal: 202 and the health rises and an event is pushed; 404, 405, 413")
    func heal() throws {
        let (service, port) = try startService()
        defer { service.stop() }
        let stream = try openStream(port)
        #expect(service.openStreams == 1, "subscribed before its preamble was sent")
        let before = try #require(service.game.heroes.first { $0.name == "Power Panda" }).health
        let client = try RawClient(port: port)
        client.send(post("/heroes/Power%20Panda/heal"))
        #expect(try client.readResponse().status == 202)
        let after = try #require(service.game.heroes.first { $0.name == "Power Panda" }).health
        #expect(abs(after - min(1, before + GameRules().healAmount)) < 1e-9)
        #expect(try stream.readUntil("\n\n").hasPrefix("event: board\nid: 2\n"))

        client.send(post("/heroes/Mr.%20Spook/heal", body: "{}"))
        #expect(try client.readResponse().status == 202)
        client.send(post("/heroes/Nobody/heal"))
        #expect(try client.readResponse().status == 404)
        client.send(get("/heroes/Spouty/heal"))
        let wrong = try client.readResponse()
        #expect(wrong.status == 405)
        #expect(wrong.headers["Allow"] == "POST")
        client.send(post("/heroes/Spouty/heal", body: String(repeating: "x", count: 1025)))
        #expect(try client.readResponse().status == 413)
    }

    @Test("a heal at full health changes nothing: 202, same version, no event")
    func healAtFullHealth() throws {
        var game = LeaderboardGame(seed: 1, start: 0)
        let healed = game.heal("Spouty", at: 10)
        #expect(healed)
        #expect(game.heroes.first { $0.name == "Spouty" }?.health == 1)
        #expect(game.updated == 10)
        let bytes = game.boardJSON()
        let again = game.heal("Spouty", at: 20)
        #expect(again)
        #expect(game.boardJSON() == bytes)
        let unknown = game.heal("Nobody", at: 30)
        #expect(!unknown)
    }

    @Test("an open stream is never shut down as an idle connection when the server is busy")
    func streamNotEvicted() throws {
        var config = HTTPServerConfiguration(port: 0)
        config.maxConnections = 4
        // Every idle connection may go: the one idle longest, the stream if it counted, goes first.
        config.evictIdleAfter = .zero
        let server = HTTPServer(configuration: config)
        server.route("/hello") { _ in .text("hello\n") }
        server.route("/events") { _ in
            var response = HTTPResponse(headers: HTTPHeaders([("Content-Type", "text/event-stream")]))
            response.stream = { stream in
                _ = stream.send(Array("retry: 2000\n\n".utf8))
                var never: [Int32] = [-1, -1]
                _ = pipe(&never)
                defer { close(never[0]); close(never[1]) }
                _ = stream.wait(signal: never[0], timeout: nil)
            }
            return response
        }
        let port = try server.start()
        defer { server.stop() }
        let stream = try RawClient(port: port)
        stream.send(get("/events"))
        #expect(try stream.readResponse().status == 200)
        #expect(try stream.readUntil("\n\n", timeout: .seconds(2)) == "retry: 2000\n\n")
        // Kept-alive clients fill the server past three quarters of its 4 places: each new one
        // makes it evict the connection idle longest — the stream, if it counted as idle.
        var held: [RawClient] = []
        for _ in 0..<8 {
            let client = try RawClient(port: port)
            client.send(get("/hello"))
            _ = try? client.readResponse(timeout: .seconds(2))
            held.append(client)
        }
        #expect(held.count == 8)
        // Still open: a read waits (times out) instead of seeing the end of the stream.
        #expect(throws: RawClient.Failure.self, "the stream was closed") {
            _ = try stream.receiveSome(timeout: .milliseconds(300))
        }
    }
}
