#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import WidgetTestSupport

/// Widget actions with the real binaries: `widgethost` in tmux and a `leaderboard-server` on
/// 127.0.0.1 that fights no battles (`--tick 3600`), so only a heal changes a hero's health.
@Suite("actions, end to end", .serialized, .onOwnThreads)
struct ActionEndToEndTests {
    @Test("focus a hero's card, press +: its health bar rises and the leaderboard panel agrees")
    func healRaisesHealth() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let server = try LeaderboardProcess.start(arguments: ["--tick", "3600", "--quiet"], logDirectory: home.path)
        defer { server.stop() }
        let events = String(server.url.dropLast("/leaderboard".count)) + "/events"
        let config = try home.write("config.json", """
            {"panels": [{"kind": "leaderboard", "family": "large", "title": "Board",
                         "options": {"url": "\(server.url)", "refreshSeconds": 600, "push": "\(events)"}},
                        {"kind": "hero", "family": "small", "options": {"name": "Power Panda"}}]}
            """)
        let tmux = TmuxHarness()
        defer {
            try? tmux.kill(signal: SIGTERM)
            tmux.stop()
        }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--state-dir", home.path + "/state", "--config", config],
                       size: (100, 30), environment: TmuxHarness.isolatedEnvironment(home: home.path))
        let before = tmux.waitFor(description: "both panels with Power Panda's health") { screen in
            Health(screen) != nil
        }
        let start = try #require(Health(before))
        try tmux.sendKeys("Tab")
        let focused = tmux.waitFor(description: "the hero focused, its key shown") { $0.last?.contains("+ heal the hero") == true }
        #expect(focused.last?.contains("+ heal the hero") == true)
        try tmux.sendKeys("+")
        let after = tmux.waitFor(timeout: .seconds(10), description: "the heal on both panels") { screen in
            guard let health = Health(screen) else { return false }
            return health.hero >= start.hero + 0.2 && health.board >= start.board + 0.2
        }
        let healed = try #require(Health(after), "\(after.joined(separator: "\n"))")
        #expect(healed.hero >= start.hero + 0.2, "\(after.joined(separator: "\n"))")
        #expect(abs(healed.hero - healed.board) < 0.1, "the panels agree: \(healed)")
        #expect(!after.contains { $0.contains("failed") })
    }
}

extension ActionEndToEndTests {
    @Test("text e: the editor gets the terminal and the panel shows what it saved; Ctrl-C in the editor ends only the editor")
    func editorTakesTheTerminal() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let notes = try home.write("notes.txt", "first line\n")
        // An editor that needs the terminal: it prints, reads a line, appends it to the file.
        let editor = try home.write("fake-editor", "#!/bin/sh\nprintf 'FAKE EDITOR %s\\n' \"$1\"\nread line\necho \"$line\" >> \"$1\"\n")
        #expect(chmod(editor, 0o755) == 0)
        let config = try home.write("config.json", """
            {"panels": [{"kind": "text", "family": "medium", "title": "Notes", "options": {"file": "\(notes)"}}]}
            """)
        var environment = TmuxHarness.isolatedEnvironment(home: home.path)
        environment["EDITOR"] = editor
        let tmux = TmuxHarness()
        defer {
            try? tmux.kill(signal: SIGTERM)
            tmux.stop()
        }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--state-dir", home.path + "/state", "--config", config],
                       size: (80, 20), environment: environment)
        tmux.waitFor(description: "the notes and the e key") { screen in
            screen.contains { $0.contains("first line") } && screen.last?.contains("e edit the file") == true
        }
        try tmux.sendKeys("e")
        tmux.waitFor(description: "the editor on the normal screen") { $0.contains { $0.contains("FAKE EDITOR \(notes)") } }
        try tmux.sendText("written in the editor")
        try tmux.sendKeys("Enter")
        let back = tmux.waitFor(description: "the dashboard again, with the new line") { screen in
            screen.contains { $0.contains("┌ Notes") } && screen.contains { $0.contains("written in the editor") }
        }
        #expect(!back.contains { $0.contains("failed") }, "\(back.joined(separator: "\n"))")

        try tmux.sendKeys("e")
        // Its second banner (the first is still on the normal screen): the editor runs and has
        // the terminal, so Ctrl-C reaches it (typed earlier, it could reach the host instead).
        tmux.waitFor(description: "the editor again") { screen in
            !screen.contains { $0.contains("┌ Notes") } && screen.filter { $0.contains("FAKE EDITOR \(notes)") }.count >= 2
        }
        try tmux.sendKeys("C-c")
        let after = tmux.waitFor(description: "the dashboard, the editor's end shown") { screen in
            screen.contains { $0.contains("┌ Notes") } && screen.contains { $0.contains("edit the file failed") }
        }
        #expect(after.contains { $0.contains("fake-editor killed by signal 2") }, "\(after.joined(separator: "\n"))")
        #expect(try tmux.exitStatus == nil, "Ctrl-C reached the editor, not the host")
    }
}

/// Power Panda's health as the hero card's bar and the leaderboard row's bar show it (0…1).
private struct Health: CustomStringConvertible {
    var hero: Double
    var board: Double

    init?(_ screen: [String]) {
        var heroBar: Double?
        var boardBar: Double?
        for row in screen {
            let halves = row.components(separatedBy: "││")
            guard halves.count == 2 else { continue }
            if halves[0].contains("🐼 Power Panda") { boardBar = Self.eighths(halves[0]).map { Double($0) / 80 } }
            // The hero's bar: blocks then its track (·), across the card.
            let right = halves[1].trimmingCharacters(in: CharacterSet(charactersIn: "│ "))
            if !right.isEmpty, right.allSatisfy({ Self.blocks[$0] != nil || $0 == "·" }) {
                heroBar = Self.eighths(right).map { Double($0) / Double(right.count * 8) }
            }
        }
        guard let heroBar, let boardBar else { return nil }
        (hero, board) = (heroBar, boardBar)
    }

    var description: String { "hero \(hero), board \(board)" }

    static let blocks: [Character: Int] = ["█": 8, "▉": 7, "▊": 6, "▋": 5, "▌": 4, "▍": 3, "▎": 2, "▏": 1]

    /// The eighths of the bar cells in `text`, or nil without any.
    static func eighths(_ text: String) -> Int? {
        let sum = text.reduce(0) { $0 + (blocks[$1] ?? 0) }
        return sum > 0 ? sum : nil
    }
}
