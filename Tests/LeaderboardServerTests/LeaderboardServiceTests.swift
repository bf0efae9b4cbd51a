import Dispatch
import Glibc
import Synchronization
import Testing
import WidgetTestSupport
@testable import LeaderboardServer

/// A service on a free loopback port whose timer will not fire during a test.
private func quietService(seed: UInt64 = 1, log: (@Sendable (String) -> Void)? = nil) throws -> (LeaderboardService, UInt16) {
    var config = LeaderboardServiceConfiguration(port: 0)
    config.seed = seed
    config.tickSeconds = 3600
    let service = LeaderboardService(configuration: config, log: log)
    return (service, try service.start())
}

@Suite("Leaderboard service")
struct LeaderboardServiceTests {
    @Test("an unchanged board answers 304; after a tick, 200 with a new ETag")
    func entityTags() throws {
        let (service, port) = try quietService()
        defer { service.stop() }
        let client = try RawClient(port: port)
        client.send(get("/leaderboard"))
        let first = try client.readResponse()
        #expect(first.status == 200 && first.headers["Content-Type"] == "application/json")
        #expect(first.body == service.game.boardJSON())
        let tag = try #require(first.headers["ETag"])

        client.send(get("/leaderboard", "If-None-Match: \(tag)\r\n"))
        let same = try client.readResponse()
        #expect(same.status == 304 && same.body.isEmpty && same.headers["ETag"] == tag)

        service.advance(ticks: 1)
        client.send(get("/leaderboard", "If-None-Match: \(tag)\r\n"))
        let changed = try client.readResponse()
        #expect(changed.status == 200 && changed.body == service.game.boardJSON())
        #expect(changed.body != first.body)
        #expect(changed.headers["ETag"] != nil && changed.headers["ETag"] != tag)
    }

    @Test("healthz answers ok; the URL names the board; the log gets a line per request")
    func healthAndLog() throws {
        let lines = Mutex<[String]>([])
        let (service, port) = try quietService(log: { line in lines.withLock { $0.append(line) } })
        #expect(service.url == "http://127.0.0.1:\(port)/leaderboard")
        let client = try RawClient(port: port)
        client.send(get("/healthz"))
        let health = try client.readResponse()
        #expect(health.status == 200 && health.body == Array("ok".utf8))
        service.stop()
        #expect(service.url == nil)
        let logged = lines.withLock { $0 }
        #expect(logged.count == 1 && logged.first?.hasPrefix("127.0.0.1 \"GET /healthz\" 200 2 ") == true)
    }

    @Test("a taken port fails to start, unless falling back to a free one")
    func portTaken() throws {
        let (holder, port) = try quietService()
        defer { holder.stop() }
        let second = LeaderboardService(configuration: LeaderboardServiceConfiguration(port: port))
        #expect(throws: ServerError.system("bind", EADDRINUSE)) { try second.start() }

        var config = LeaderboardServiceConfiguration(port: port)
        config.fallbackToFreePort = true
        let fallback = LeaderboardService(configuration: config)
        defer { fallback.stop() }
        let other = try fallback.start()
        #expect(other != port && other != 0)
        #expect(throws: ServerError.notStartable) { try fallback.start() }
    }

    @Test("the timer plays ticks on its own")
    func timer() throws {
        var config = LeaderboardServiceConfiguration(port: 0)
        config.seed = 2
        config.tickSeconds = 1
        let ticked = DispatchSemaphore(value: 0)
        let service = LeaderboardService(configuration: config, onTick: { _ in ticked.signal() })
        defer { service.stop() }
        try service.start()
        #expect(ticked.wait(timeout: .now() + .seconds(20)) == .success)
        let game = service.game
        #expect(game.ticks >= 1 && game.updated == game.start + game.ticks)
    }
}
