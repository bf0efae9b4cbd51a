#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetTestSupport

/// Issue 23's replay test: a real run of the default dashboard (its bundled leaderboard
/// server) in tmux, recorded with `--record-messages FILE` while keys are pressed, replayed
/// headless from FILE by `snapshot --replay` to the very screen the terminal showed.
@Suite("replay, end to end", .serialized, .onOwnThreads)
struct ReplayEndToEndTests {
    @Test("a recorded run of the default dashboard (Tab, r, t, the leaderboard's data) replays from its file to the screen the terminal showed")
    func replaysARecordedRun() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let log = home.path + "/run.jsonl"
        let widgethost = try BuiltProducts.executable("widgethost")
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"])
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [widgethost, "--state-dir", home.path + "/state", "--record-messages", log],
                       size: (100, 30), environment: environment)
        tmux.waitFor(description: "the leaderboard's heroes") { Self.showsBoard($0) }
        try tmux.sendKeys("Tab")
        try tmux.sendText("r")
        try tmux.sendText("t")
        // Tab focused the hero card (the status bar names it); r reloaded it; its board is back.
        tmux.waitFor(description: "the hero focused, the board shown, the three keys applied") { screen in
            Self.showsBoard(screen) && screen.last?.contains("Spouty") == true && screen.contains { $0.contains("level") }
                && (try? Self.lines(log).contains { $0.contains(#""key":"char:t""#) }) == true
        }
        // The screen, and how many lines the log had when it was drawn: the same count before
        // and after the capture means no message came in between (the system panel answers
        // every 2 s).
        var screen: [String] = []
        var recorded = -1
        for _ in 0..<20 {
            let before = try Self.lines(log).count
            screen = try tmux.capture()
            if try Self.lines(log).count == before {
                recorded = before
                break
            }
        }
        try #require(recorded > 1, "messages kept coming while the screen was captured")
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))

        let lines = try Self.lines(log)
        let after = lines[recorded...]
        // Only the q and the quit it asks for came after the capture: the replay's last frame is
        // the screen. Otherwise (an answer came between the capture and the q) the log up to the
        // capture is replayed, from a copy cut there.
        var replayed = log
        if !after.allSatisfy({ $0.contains(#""type":"quit""#) || $0.contains(#""key":"char:q""#) }) {
            replayed = try home.write("cut.jsonl", lines[..<recorded].joined(separator: "\n") + "\n")
        }
        let replay = try Subprocess.run([widgethost, "snapshot", "--replay", replayed],
                                        environment: ["PATH": "/usr/bin:/bin", "HOME": home.path],
                                        timeout: TestTimeScale.scaled(.seconds(30)))
        #expect(replay.status == 0, "\(replay.standardError)")
        let frame = replay.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(Self.trimmed(frame) == Self.trimmed(screen),
                "replayed:\n\(frame.joined(separator: "\n"))\nterminal:\n\(screen.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains(#""type":"providerAnswered""#) && $0.contains(#""codec":"leaderboard""#) })
        #expect(["tab", "char:r", "char:t"].allSatisfy { key in lines[..<recorded].contains { $0.contains(#""key":"\#(key)""#) } })
    }

    /// All six heroes of the bundled server's board, and the system panel.
    static func showsBoard(_ screen: [String]) -> Bool {
        ["Octo", "Spouty", "Cake", "Mr. Spook", "Egghead", "Power Panda"].allSatisfy { name in screen.contains { $0.contains(name) } }
            && screen.contains { $0.contains("│CPU ") }
    }

    /// The log's lines (the last, unfinished or empty, left out).
    static func lines(_ path: String) throws -> [String] {
        let text = try FileContents.text(at: path)
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.removeLast()
        return lines
    }

    /// Rows without trailing blanks (tmux drops them), and no blank rows at the end.
    static func trimmed(_ rows: [String]) -> [String] {
        var rows = rows.map { row in String(row.reversed().drop { $0 == " " }.reversed()) }
        while rows.last == "" { rows.removeLast() }
        return rows
    }
}
