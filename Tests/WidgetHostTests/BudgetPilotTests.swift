import FoundationEssentials
import LeaderboardServer
import TerminalUI
import Testing
import Widgets
@testable import WidgetHost

/// "86,463"
private func grouped(_ n: Int) -> String {
    let digits = Array(String(n))
    var out = ""
    for (index, digit) in digits.enumerated() {
        if index > 0 && (digits.count - index) % 3 == 0 { out += "," }
        out.append(digit)
    }
    return out
}

@Suite("a day under a tight reload budget, headless", .serialized)
@MainActor
struct BudgetPilotTests {
    @Test("dailyReloadBudget 5: ten hours on, the seconds clock is right every hour and r shows the new board at once")
    func tenHours() async throws {
        var configuration = LeaderboardServiceConfiguration(host: "127.0.0.1", port: 0)
        configuration.seed = 7
        configuration.tickSeconds = 1_000_000  // the board changes only when the test says so
        let server = LeaderboardService(configuration: configuration, log: nil)
        let port = try server.start()
        defer { server.stop() }
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let config = directory.write("budget.json", """
            { "minimumReloadSeconds": 5, "dailyReloadBudget": 5, "panels": [
                { "kind": "leaderboard", "family": "large", "title": "Board",
                  "options": { "url": "http://127.0.0.1:\(port)/leaderboard", "refreshSeconds": 60 } },
                { "kind": "clock", "family": "small", "title": "UTC", "options": { "timeZone": "UTC", "seconds": true } } ] }
            """)
        let start = Date(timeIntervalSince1970: 1_796_032_800)  // 2026-11-30T10:00:00Z
        let dashboard = try HeadlessDashboard.open(catalog: .builtin(), configPath: config, size: TerminalSize(columns: 100, rows: 30), now: start,
                                                   environment: HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8"],
                                                                                homeDirectory: "/nonexistent")).get()
        defer { dashboard.close() }
        #expect(await dashboard.settle(within: 60))
        var sawBudgetNotice = false
        for hour in 1...10 {
            for _ in 0..<6 {
                #expect(await dashboard.run(for: 600, settleWithin: 60))
                let frame = TextBackend.lines(dashboard.render()).joined(separator: "\n")
                sawBudgetNotice = sawBudgetNotice || frame.contains("daily reload budget used")
            }
            let frame = TextBackend.lines(dashboard.render()).joined(separator: "\n")
            let expected = "\(10 + hour):00:00"
            #expect(showsTime(frame, expected), "hour \(hour): the clock shows \(expected)\n\(frame)")
        }
        #expect(sawBudgetNotice, "the held-back leaderboard says why in its footer")

        server.advance(ticks: 1)
        let leader = try #require(server.game.heroes.first)
        let before = TextBackend.lines(dashboard.render()).joined(separator: "\n")
        #expect(!before.contains(grouped(leader.exp)), "the new exp is not shown yet")
        dashboard.press(.character("r"))
        #expect(await dashboard.settle(within: 60))
        let after = TextBackend.lines(dashboard.render()).joined(separator: "\n")
        #expect(after.contains(grouped(leader.exp)), "r shows the new board at once, budget or not\n\(after)")
    }
}
