import Glibc
import Synchronization
import Testing
import BackgroundSessions
import LeaderboardServer
import WidgetTestSupport

/// What a stream reported, in order.
private final class Updates: Sendable {
    private let list = RecordedEvents<EventStreamUpdate>()
    func add(_ update: EventStreamUpdate) { list.append(update) }
    var all: [EventStreamUpdate] { list.values }
    var events: [(ServerSentEvent, Int)] { all.events }
    var connects: Int { all.connects }
    var disconnects: Int { all.disconnects }

    /// Waits (bounded) until `condition` holds of the updates so far: each update checks it again.
    func wait(within seconds: Double = 30, until condition: @escaping @Sendable ([EventStreamUpdate]) -> Bool) async -> Bool {
        await list.wait(within: seconds, until: condition)
    }
}

private extension Array where Element == EventStreamUpdate {
    var events: [(ServerSentEvent, Int)] {
        compactMap { if case .event(let e, let n) = $0 { return (e, n) } else { return nil } }
    }
    var connects: Int { filter { $0 == .connected }.count }
    var disconnects: Int { filter { if case .disconnected = $0 { true } else { false } }.count }
}

/// A leaderboard service on `port` (0: a free one). Restarting on a port just freed can find it
/// taken for a moment — the client reconnecting every 250 ms may even be given that very port
/// as its own end (a self-connect) — so a fixed port is tried for up to 5 s.
private func service(port: UInt16 = 0) throws -> LeaderboardService {
    let deadline = ContinuousClock.now + .seconds(5)
    while true {
        var config = LeaderboardServiceConfiguration(port: port)
        config.seed = 3
        config.tickSeconds = 3600
        let service = LeaderboardService(configuration: config)
        let failure: ServerError
        do {
            try service.start()
            return service
        } catch {
            failure = error
        }
        if port == 0 || ContinuousClock.now >= deadline { throw failure }
        usleep(50_000)
    }
}

@Suite("Event streams on the curl transport", .serialized)
struct EventStreamTransportTests {
    init() {
        unsetenv("http_proxy")
        unsetenv("HTTP_PROXY")
    }

    @Test("each board change arrives as an event; after the server restarts the stream reconnects with Last-Event-ID")
    func reconnectWithLastEventID() async throws {
        let first = try service()
        let port = try #require(first.port)
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let updates = Updates()
        var config = EventStreamConfiguration()
        config.budgetSpacing = .zero
        config.defaultRetry = .milliseconds(250)
        let id = transport.openEventStream(url: try #require(first.eventsURL), configuration: config) { updates.add($0) }
        defer { transport.closeEventStream(id) }
        #expect(await eventually { updates.connects == 1 && first.openStreams == 1 })
        first.advance(ticks: 1)
        #expect(await updates.wait { $0.events.count == 1 })
        first.advance(ticks: 1)
        #expect(await updates.wait { $0.events.count == 2 })
        #expect(updates.events.map(\.0.lastEventID) == ["2", "3"])
        #expect(updates.events.last?.0.type == "board")
        #expect(updates.events.last?.0.data.hasPrefix("{\"version\": 3,") == true)

        first.stop()
        #expect(await updates.wait { $0.disconnects >= 1 })
        // A new run of the server: version 1 again. The client's Last-Event-ID (3) differs, so
        // the server sends its board at once — which it does only when the header came.
        let second = try service(port: port)
        defer { second.stop() }
        #expect(await updates.wait { $0.events.count == 3 }, "\(updates.all)")
        #expect(updates.events.last?.0.lastEventID == "1")
        #expect(updates.connects >= 2)
    }

    @Test("100 events a second from a misbehaving server: at most one reload a second plus one queued, the last event kept")
    func floodStaysWithinBudget() async throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0))
        let sent = Atomic<Int>(0)
        server.route("/flood") { _ in
            var response = HTTPResponse(headers: HTTPHeaders([("Content-Type", "text/event-stream")]))
            response.stream = { stream in
                for n in 1...200 {
                    guard stream.send(Array("id: \(n)\ndata: \(n)\n\n".utf8)) else { return }
                    sent.store(n, ordering: .relaxed)
                    usleep(10_000)
                }
                var never: [Int32] = [-1, -1]
                _ = pipe(&never)
                defer { close(never[0]); close(never[1]) }
                _ = stream.wait(signal: never[0], timeout: nil)
            }
            return response
        }
        let port = try server.start()
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let updates = Updates()
        let started = ContinuousClock.now
        let id = transport.openEventStream(url: "http://127.0.0.1:\(port)/flood") { updates.add($0) }
        defer { transport.closeEventStream(id) }
        #expect(await updates.wait(within: 20) { $0.events.last?.0.data == "200" })
        let elapsed = started.duration(to: .now)
        let events = updates.events
        let seconds = Int(elapsed.components.seconds) + 1
        // The budget: one a second, plus the one a burst starts with.
        #expect(events.count <= seconds + 1, "\(events.count) reloads in \(elapsed)")
        #expect(events.count >= 2)
        #expect(events.map(\.1).reduce(0, +) == 200)     // every event is accounted for
        #expect(sent.load(ordering: .relaxed) == 200)
    }

    @Test("a server that is not an event stream, or refuses, is retried with a growing delay")
    func refusedAndBackoff() async throws {
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0))
        server.route("/json") { _ in .json(Array("{}".utf8)) }
        let port = try server.start()
        defer { server.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let updates = Updates()
        var config = EventStreamConfiguration()
        config.defaultRetry = .milliseconds(250)
        let id = transport.openEventStream(url: "http://127.0.0.1:\(port)/json", configuration: config) { updates.add($0) }
        defer { transport.closeEventStream(id) }
        #expect(await updates.wait { $0.disconnects >= 3 })
        let waits = updates.all.compactMap { if case .disconnected(_, let d) = $0 { return d } else { return nil } }
        #expect(Array(waits.prefix(3)) == [.milliseconds(250), .milliseconds(500), .seconds(1)])
        guard case .disconnected(let reason, _)? = updates.all.first else { Issue.record("no update"); return }
        #expect(reason.hasPrefix("not an event stream"))
        #expect(updates.connects == 0)
    }

    @Test("the delay: retry: honoured within its range, doubled per failure up to the cap")
    func delays() {
        let config = EventStreamConfiguration()
        #expect(config.delay(failures: 0, serverRetryMilliseconds: nil) == .seconds(2))
        #expect(config.delay(failures: 0, serverRetryMilliseconds: 5000) == .seconds(5))
        #expect(config.delay(failures: 0, serverRetryMilliseconds: 0) == .milliseconds(250))
        #expect(config.delay(failures: 0, serverRetryMilliseconds: .max) == .seconds(60))
        #expect(config.delay(failures: 3, serverRetryMilliseconds: 2000) == .seconds(8))
        #expect(config.delay(failures: 40, serverRetryMilliseconds: 2000) == .seconds(30))
    }

    @Test("the push budget: a burst is one reload now and one queued at the end of the spacing")
    func budget() {
        var budget = PushBudget(spacing: .seconds(1))
        let t0 = ContinuousClock.now
        var answers = [budget.eventArrived(at: t0)]
        for ms in stride(from: 10, to: 1000, by: 10) {
            answers.append(budget.eventArrived(at: t0 + .milliseconds(ms)))
        }
        #expect(answers == [true] + Array(repeating: false, count: 99))
        #expect(budget.queuedAt == t0 + .seconds(1))
        let early = budget.takeDue(at: t0 + .milliseconds(999))
        let due = budget.takeDue(at: t0 + .seconds(1))
        let again = budget.takeDue(at: t0 + .seconds(1))
        let later = budget.eventArrived(at: t0 + .seconds(3))
        #expect([early, due, again, later] == [false, true, false, true])
    }
}
