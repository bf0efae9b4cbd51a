#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetTestSupport

/// An extension whose child leaves its process group with `setsid` and sleeps: the group kill
/// that stops the extension misses it, but the host (a child subreaper) inherits and ends it.
private let manifest = #"""
{ "name": "NAME", "exec": ["/bin/sh", "leaves.sh"], "protocol": 1,
  "widgets": [ { "kind": "panel", "displayName": "Leaves" } ], "limits": { "requestSeconds": 20 } }
"""#

/// Starts the `setsid` sleeper at launch (its pid in DATA/orphan.pid); answers each
/// timeline; with a file `exits` in its folder, exits after its first answer.
private let script = #"""
rm -f "$WIDGETHOST_EXTENSION_DATA/orphan.pid"
setsid sh -c 'echo $$ > "$WIDGETHOST_EXTENSION_DATA/orphan.pid.tmp"; mv "$WIDGETHOST_EXTENSION_DATA/orphan.pid.tmp" "$WIDGETHOST_EXTENSION_DATA/orphan.pid"; exec sleep 300' </dev/null >/dev/null 2>&1 &
# The pid is written before this goes on: an early exit must not kill the sleeper before it says who it is.
while [ ! -f "$WIDGETHOST_EXTENSION_DATA/orphan.pid" ]; do sleep 0.05; done
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in
    *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;;
    *'"method":"timeline"'*)
        printf '{"jsonrpc":"2.0","id":%s,"result":{"entries":[{"date":"2026-01-01T00:00:00Z","view":{"type":"text","spans":[{"text":"answered"}]}}],"policy":"never"}}\n' "$id"
        [ -f exits ] && exit 0 ;;
    esac
done
"""#

@Suite("processes that outlive what started them, end to end", .serialized, .onOwnThreads)
struct OrphanEndToEndTests {
    @Test("an extension's setsid child is killed when the extension exits, and when the host quits")
    func setsidChildrenDoNotOutliveTheHost() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        for folder in ["/state", "/ext", "/ext/stays", "/ext/exits"] { mkdir(home.path + folder, 0o755) }
        for name in ["stays", "exits"] {
            try home.write("ext/\(name)/extension.json", manifest.replacing("NAME", with: name))
            try home.write("ext/\(name)/leaves.sh", script)
        }
        try home.write("ext/exits/exits", "")
        let config = try home.write("config.json", #"""
            { "panels": [ { "kind": "stays/panel" }, { "kind": "exits/panel" } ] }
            """#)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state",
                                 "--extensions-dir", home.path + "/ext"],
                       size: (80, 20), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"]))
        let pidFile = { (name: String) -> pid_t? in
            let text = (try? FileContents.text(at: home.path + "/state/extensions/\(name)/orphan.pid")) ?? ""
            return pid_t(text.split(separator: "\n").first ?? "")
        }
        #expect(poll(seconds: 20) { pidFile("stays") != nil && pidFile("exits") != nil })
        let stays = try #require(pidFile("stays"))
        let exits = try #require(pidFile("exits"))
        defer { for pid in [stays, exits] where isLive(pid) { kill(pid, SIGKILL) } }  // a failing run leaves no sleeper
        // The pid is written just before the `exec sleep`.
        #expect(poll(seconds: 10) { isSleeping(stays) }, "the sleeper of the extension that stays runs")
        // The extension that exits after its answer: its sleeper goes while the host runs on.
        #expect(poll(seconds: 10) { !isLive(exits) }, "the sleeper of the extension that exited still runs: \(exits)")
        #expect(try tmux.exitStatus == nil, "the host runs on")
        let log = (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? ""
        #expect(log.components(separatedBy: "killed orphan \(exits) ").count == 2, "said once in the log: \(log)")
        #expect(isSleeping(stays), "the other extension's sleeper is left alone while its extension runs")
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
        #expect(poll(seconds: 5) { !isLive(stays) }, "the sleeper outlived the host: \(stays)")
    }

    @Test("a child the host had before it started (inherited across exec: `ssh -N … & exec widgethost`) is not an orphan: it is left running")
    func inheritedChildrenAreLeftAlone() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let pidPath = home.path + "/sleeper.pid"
        let script = "sleep 300 & echo $! > '\(pidPath)'; exec '\(try BuiltProducts.executable("widgethost"))' --version"
        let result = try Subprocess.run(["/bin/sh", "-c", script], environment: ["PATH": "/usr/bin:/bin", "HOME": home.path],
                                        timeout: TestTimeScale.scaled(.seconds(20)))
        #expect(result.standardOutput.hasPrefix("widgethost "), "\(result)")
        let sleeper = try #require(pid_t(((try? FileContents.text(at: pidPath)) ?? "").split(separator: "\n").first ?? ""))
        defer { kill(sleeper, SIGKILL) }
        #expect(isSleeping(sleeper), "the host killed a child it had before it started: \(sleeper)")
    }

    @Test("what the user's $EDITOR leaves running on purpose (a server, an agent) is not the host's to kill: it goes to init, as from a shell")
    func editorLeftoversAreTheUsers() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let notes = try home.write("notes.txt", "first line\n")
        let pidPath = home.path + "/server.pid"
        // An editor that starts a server of its own in a session of its own, then exits.
        let editor = try home.write("fake-editor", "#!/bin/sh\nsetsid sleep 300 </dev/null >/dev/null 2>&1 &\necho $! > '\(pidPath)'\nexit 0\n")
        #expect(chmod(editor, 0o755) == 0)
        let config = try home.write("config.json", """
            {"panels": [{"kind": "text", "family": "medium", "title": "Notes", "options": {"file": "\(notes)"}}]}
            """)
        var environment = TmuxHarness.isolatedEnvironment(home: home.path)
        environment["EDITOR"] = editor
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--state-dir", home.path + "/state", "--config", config],
                       size: (80, 20), environment: environment)
        tmux.waitFor(description: "the notes") { screen in screen.contains { $0.contains("first line") } }
        try tmux.sendKeys("e")
        #expect(poll(seconds: 10) { (try? FileContents.text(at: pidPath)) != nil })
        let server = try #require(pid_t(((try? FileContents.text(at: pidPath)) ?? "").split(separator: "\n").first ?? ""))
        defer { kill(server, SIGKILL) }
        tmux.waitFor(description: "the dashboard again") { screen in screen.contains { $0.contains("┌ Notes") } }
        // The editor's end was a SIGCHLD: the host has looked for orphans by now, and again at its quit.
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
        #expect(isSleeping(server), "the host killed the editor's server: \(server)")
    }

    /// Whether `pid` is a live `sleep` (not a zombie, not another process that took its pid).
    private func isSleeping(_ pid: pid_t) -> Bool {
        liveCommand(pid) == "sleep"
    }

    /// Whether `pid` is the sleeper, before its `exec sleep` (`sh`) or after, and not a zombie.
    private func isLive(_ pid: pid_t) -> Bool {
        liveCommand(pid) == "sleep" || liveCommand(pid) == "sh"
    }

    /// The command name of `pid` unless it is gone or a zombie.
    private func liveCommand(_ pid: pid_t) -> String? {
        guard let stat = try? FileContents.text(at: "/proc/\(pid)/stat"), let open = stat.firstIndex(of: "("),
              let close = stat.lastIndex(of: ")") else { return nil }
        let state = stat[stat.index(after: close)...].dropFirst().prefix(1)
        return state == "Z" ? nil : String(stat[stat.index(after: open)..<close])
    }

    private func poll(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + TestTimeScale.scaled(.milliseconds(Int64(seconds * 1000)))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}
