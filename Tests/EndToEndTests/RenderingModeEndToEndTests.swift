#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetTestSupport

/// Rendering modes (issue 26, item 9) on the real terminal: the mode comes from the terminal or
/// `--rendering-mode`, and an alert reads without colour.
@Suite("Rendering modes, end to end", .serialized, .onOwnThreads)
struct RenderingModeEndToEndTests {
    /// The foreground colours the SGR sequences in `rows` select (`31`, `96`, `38;5;75`,
    /// `38;2;…`), as tmux sends them; the default (`39`) is none.
    private static func colours(_ rows: [String]) -> Set<String> {
        var found: Set<String> = []
        for match in rows.joined().matches(of: /\e\[([0-9;]*)m/) {
            let parameters = String(match.1).split(separator: ";", omittingEmptySubsequences: false).map(String.init)
            var i = 0
            while i < parameters.count {
                let count = parameters[i] == "38" ? (parameters.dropFirst(i + 1).first == "5" ? 3 : 5) : 1
                let code = Int(parameters[i]) ?? 0
                if parameters[i] == "38" || (30...37).contains(code) || (90...97).contains(code) {
                    found.insert(parameters[i..<min(parameters.count, i + count)].joined(separator: ";"))
                }
                if parameters[i] == "48" { i += parameters.dropFirst(i + 1).first == "5" ? 3 : 5 } else { i += count }
            }
        }
        return found
    }

    /// A dashboard of an activities panel in a private home, its runtime directory `home/run`.
    private static func dashboard(_ home: ScratchDirectory, extra: [String: String], arguments: [String] = [],
                                  term: String = "xterm-256color") throws -> (TmuxHarness, [String: String]) {
        let runtime = home.path + "/run"
        mkdir(runtime, 0o700)
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: [
            "XDG_RUNTIME_DIR": runtime, "PATH": try BuiltProducts.directory() + ":/usr/local/bin:/usr/bin:/bin", "TZ": "UTC"]
            .merging(extra) { _, new in new })
        let config = try home.write("config.json", #"{ "panels": [ { "kind": "activities", "family": "medium", "title": "Activities" } ] }"#)
        let tmux = TmuxHarness()
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config] + arguments, size: (60, 12),
                       environment: environment, term: term)
        tmux.waitFor(description: "the dashboard") { anyRow($0, containsAll: "┌ Activities") }
        return (tmux, environment)
    }

    private static func activity(_ environment: [String: String], _ arguments: String...) throws -> Int32 {
        try Subprocess.run([try BuiltProducts.executable("widgethost"), "activity"] + arguments, environment: environment,
                           timeout: TestTimeScale.scaled(.seconds(10))).status
    }

    @Test("NO_COLOR is mono: no colour at all, and a failed activity's alert shows as a heavy border")
    func noColorAlert() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let (tmux, environment) = try Self.dashboard(home, extra: ["NO_COLOR": "1"])
        defer { tmux.stop() }
        #expect(try Self.activity(environment, "start", "deploy", "--title", "Deploy") == 0)
        tmux.waitFor(description: "the activity") { anyRow($0, containsAll: "⏵ Deploy") }
        #expect(try Self.activity(environment, "end", "deploy", "--state", "failure") == 0)
        tmux.waitFor(description: "the critical alert's heavy border, top and bottom") { screen in
            anyRow(screen, containsAll: "┏ Activities ━") && screen.contains { $0.hasPrefix("┗━━━") }
        }
        let screen = try tmux.capture(escapes: true)
        #expect(Self.colours(screen).isEmpty, "no colour under NO_COLOR: \(screen.joined(separator: "\n").debugDescription)")
    }

    @Test("--rendering-mode accented draws two tones; an 8-colour terminal is accented by itself")
    func accented() throws {
        for (arguments, term) in [(["--rendering-mode", "accented"], "xterm-256color"), ([], "xterm")] {
            let home = try ScratchDirectory()
            defer { home.remove() }
            let (tmux, environment) = try Self.dashboard(home, extra: [:], arguments: arguments, term: term)
            defer { tmux.stop() }
            #expect(try Self.activity(environment, "start", "deploy", "--title", "Deploy") == 0)
            #expect(try Self.activity(environment, "end", "deploy", "--state", "failure") == 0)
            tmux.waitFor(description: "the alert's heavy border") { anyRow($0, containsAll: "┏ Activities ━") }
            // The neutral tone and the accent (the alerted border), nothing else.
            let screen = try tmux.capture(escapes: true)
            #expect(Self.colours(screen).count == 2, "\(term): \(Self.colours(screen)) in \(screen.joined(separator: "\n").debugDescription)")
        }
    }
}
