#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetTestSupport

/// `http-json` with the real binaries: `widgethost` in tmux reading a `leaderboard-server` on
/// 127.0.0.1 (port 0) as any JSON feed, with an `Authorization` header from the environment.
@Suite("http-json, end to end", .serialized, .onOwnThreads)
struct HTTPJSONEndToEndTests {
    private static let secret = "Bearer e2e-9d4c1b"

    @Test("labelled values from the loopback server; while it is down the values stay with the error; back when it returns; the secret stays out of every file")
    func liveAndFailing() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        var server = try LeaderboardProcess.start(arguments: ["--tick", "3600"], logDirectory: home.path)
        defer { server.stop() }
        let config = try home.write("config.json", """
            { "minimumReloadSeconds": 1,
              "panels": [ { "kind": "http-json", "family": "medium", "title": "Feed",
                "options": { "url": "\(server.url)", "refreshSeconds": 1,
                  "headers": { "Authorization": "$FEED_TOKEN", "Accept": "application/json" },
                  "fields": [ { "label": "Leader", "pointer": "/heroes/0/name" },
                              { "label": "Exp", "pointer": "/heroes/0/exp", "format": "number" },
                              { "label": "Health", "pointer": "/heroes/0/health", "format": "percent" },
                              { "label": "Missing", "pointer": "/heroes/9/name" } ] } } ] }
            """)
        let state = home.path + "/state"
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", state],
                       size: (80, 24), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["FEED_TOKEN": Self.secret]))

        let live = tmux.waitFor(description: "the leader's values") { screen in
            anyRow(screen, containsAll: "Leader", "Octo") && anyRow(screen, containsAll: "Exp", "86,463")
                && anyRow(screen, containsAll: "Missing", "—") && anyRow(screen, containsAll: "updated")
        }
        #expect(anyRow(live, containsAll: "Health", "%"), "\(text(live))")
        #expect(ScreenGrid(live).boxes().problems.isEmpty, "\(text(live))")

        server.stop()
        let failing = tmux.waitFor(timeout: .seconds(30), description: "the error, with the values kept") { screen in
            anyRow(screen, containsAll: "⚠") && anyRow(screen, containsAll: "data", "old")
        }
        #expect(anyRow(failing, containsAll: "Leader", "Octo") && anyRow(failing, containsAll: "Exp", "86,463"),
                "the last good values stay\n\(text(failing))")
        #expect(ScreenGrid(failing).boxes().problems.isEmpty, "\(text(failing))")
        #expect(try tmux.exitStatus == nil, "widgethost is still running")

        server = try server.restart()
        let back = tmux.waitFor(timeout: .seconds(60), description: "the values fresh again") { screen in
            !anyRow(screen, containsAll: "⚠") && anyRow(screen, containsAll: "updated") && anyRow(screen, containsAll: "Leader", "Octo")
        }
        #expect(!anyRow(back, containsAll: "e2e-9d4c1b"), "\(text(back))")
        try tmux.sendText("q")
        tmux.waitForExit()
        #expect(!Self.anyFile(under: state, contains: "e2e-9d4c1b"), "the secret is in a file of the state directory")
    }

    /// Whether any regular file under `directory` holds `needle`.
    private static func anyFile(under directory: String, contains needle: String) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
        for name in names {
            let path = directory + "/" + name
            var isDirectory = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { continue }
            if isDirectory {
                if anyFile(under: path, contains: needle) { return true }
            } else if let data = FileManager.default.contents(atPath: path),
                      String(decoding: data, as: UTF8.self).contains(needle) {
                return true
            }
        }
        return false
    }
}
