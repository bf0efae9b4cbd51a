#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetTestSupport

/// Push (server-sent events) with the real binaries: `widgethost` in tmux and a
/// `leaderboard-server` on 127.0.0.1, its leaderboard panel on a 10-minute refresh with the
/// server's `/events` as its push source. Waits poll the screen under scaled deadlines.
@Suite("push, end to end", .serialized, .onOwnThreads)
struct PushEndToEndTests {
    @Test("with refreshSeconds 600 the board still changes within a second of each server tick; the footer says live")
    func boardFollowsTicks() throws {
        try withPushHost { host, _ in
            let first = host.tmux.waitFor(description: "the board, live") { showsAllHeroes($0) && footerSays($0, "live") }
            var rows = heroRows(first)
            // A tick every 3 s: each change must come within a tick and a second of the last.
            for change in 1...3 {
                let screen = host.tmux.waitFor(timeout: .seconds(4), description: "change \(change) pushed") { screen in
                    showsAllHeroes(screen) && heroRows(screen) != rows
                }
                #expect(heroRows(screen) != rows, "change \(change) did not come within 4 s")
                rows = heroRows(screen)
            }
        }
    }

    @Test("server killed: footer polling and the board stays; server back: live again with no key pressed")
    func serverDownAndBack() throws {
        try withPushHost { host, server in
            host.tmux.waitFor(description: "the board, live") { showsAllHeroes($0) && footerSays($0, "live") }
            server.stop()
            let down = host.tmux.waitFor(timeout: .seconds(10), description: "polling, the board kept") { screen in
                showsAllHeroes(screen) && footerSays(screen, "polling")
            }
            #expect(showsAllHeroes(down) && footerSays(down, "polling"), "\(down.joined(separator: "\n"))")
            let again = try server.restart()
            defer { again.stop() }
            let back = host.tmux.waitFor(timeout: .seconds(15), description: "live again") { screen in
                showsAllHeroes(screen) && footerSays(screen, "live")
            }
            #expect(footerSays(back, "live"), "\(back.joined(separator: "\n"))")
            #expect(try host.tmux.exitStatus == nil)
        }
    }
}

private extension PushEndToEndTests {
    static let heroes = [("Octo", "🐙"), ("Spouty", "🐳"), ("Cake", "🎂"),
                         ("Mr. Spook", "💀"), ("Egghead", "🦄"), ("Power Panda", "🐼")]

    func showsAllHeroes(_ screen: [String]) -> Bool {
        Self.heroes.allSatisfy { name, avatar in screen.contains { $0.contains("\(avatar) \(name)") } }
    }

    func heroRows(_ screen: [String]) -> [String] {
        screen.filter { row in Self.heroes.contains { row.contains("\($0.1) \($0.0)") } }
    }

    /// The leaderboard's footer row ends with `· live` or `· polling`.
    func footerSays(_ screen: [String], _ mode: String) -> Bool {
        screen.contains { row in
            (row.contains("│updated ") || row.contains("│⚠ ")) && row.contains("· \(mode) ")
        }
    }

    /// A `leaderboard-server --tick 3 --keepalive 0` and a host whose one leaderboard panel
    /// refreshes every 600 s and pushes from the server's `/events`.
    func withPushHost(_ body: (PushHost, LeaderboardProcess) throws -> Void) throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let server = try LeaderboardProcess.start(arguments: ["--tick", "3", "--quiet", "--keepalive", "0"], logDirectory: home.path)
        defer { server.stop() }
        let events = String(server.url.dropLast("/leaderboard".count)) + "/events"
        let config = try home.write("config.json", """
            {"minimumReloadSeconds": 1,
             "panels": [{"kind": "leaderboard", "family": "large", "title": "Board",
                         "options": {"url": "\(server.url)", "refreshSeconds": 600, "push": "\(events)"}}]}
            """)
        let host = PushHost(home: home)
        defer { host.stop() }
        try host.start(config: config)
        try body(host, server)
    }
}

private final class PushHost {
    let home: ScratchDirectory
    let tmux = TmuxHarness()

    init(home: ScratchDirectory) { self.home = home }

    func start(config: String) throws {
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--state-dir", home.path + "/state", "--config", config],
                       size: (100, 30), environment: TmuxHarness.isolatedEnvironment(home: home.path))
    }

    func stop() {
        if (try? tmux.paneIsDead) == false {
            try? tmux.kill(signal: SIGTERM)
            tmux.waitForExit()
        }
        tmux.stop()
    }
}
