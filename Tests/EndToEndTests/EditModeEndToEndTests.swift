#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetTestSupport

/// Edit mode and `config add` in the real binary: from no config, the dashboard as shown is
/// arranged, saved, extended from a shell, and shown again at the next start.
@Suite("edit mode, end to end", .serialized, .onOwnThreads)
struct EditModeEndToEndTests {
    @Test("from no config: E, J, s, q writes the default dashboard rearranged; config add extends it; the next start shows both")
    func arrangeSaveAndStartAgain() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let widgethost = try BuiltProducts.executable("widgethost")
        let environment = TmuxHarness.isolatedEnvironment(home: home.path)
        let file = home.path + "/.config/widgethost/config.json"
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [widgethost], size: (100, 30), environment: environment)
        tmux.waitFor(description: "the default dashboard") { ($0.first ?? "").hasPrefix("┌ Ranger Leaderboard") }
        try tmux.sendText("E")
        tmux.waitFor(description: "edit mode") { ($0.last ?? "").contains("EDIT │ Ranger Leaderboard") && ($0.last ?? "").contains("Esc done") }
        try tmux.sendText("J")
        tmux.waitFor(description: "the leaderboard moved after Spouty") {
            ($0.first ?? "").hasPrefix("┌ Spouty") && ($0.last ?? "").contains("EDIT* │ Ranger Leaderboard")
        }
        try tmux.sendText("s")
        // The path is cut short in the status bar; the file is read below.
        tmux.waitFor(description: "saved") { ($0.last ?? "").contains("EDIT │ Ranger Leaderboard │ saved \(home.path)") }
        try tmux.sendText("q")
        tmux.waitFor(description: "leaving: nothing unsaved, no question") { !($0.last ?? "").contains("EDIT") }
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))

        let add = try Subprocess.run([widgethost, "config", "add", "countdown", "--option", "to=2030-01-01T00:00Z",
                                      "--option", "label=Launch"], environment: environment, timeout: TestTimeScale.scaled(.seconds(30)))
        #expect(add.status == 0, "\(add.standardError)")
        #expect(add.standardOutput == "\(file): added countdown as panel 5\n")
        let check = try Subprocess.run([widgethost, "check-config", file], environment: environment,
                                       timeout: TestTimeScale.scaled(.seconds(30)))
        #expect(check.status == 0 && check.standardOutput == "\(file): ok\n", "\(check.standardError)")

        let again = TmuxHarness()
        defer { again.stop() }
        try again.start(command: [widgethost], size: (100, 30), environment: environment)
        again.waitFor(description: "the saved dashboard: Spouty first, the countdown added") {
            ($0.first ?? "").hasPrefix("┌ Spouty") && anyRow($0, containsAll: "┌ Launch")
        }
        try again.sendText("q")
        #expect(again.waitForExit() == .exited(0))
    }
}
