#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetTestSupport

/// The repository's `Examples/extensions`, found from this file.
private let examples: String = {
    var path = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    path.removeLast(3)  // Tests/EndToEndTests/ExtensionEndToEndTests.swift
    return path.joined(separator: "/") + "/Examples/extensions"
}()

/// An extension that answers `initialize` and never a timeline.
private let stuckManifest = #"""
{ "name": "stuck", "exec": ["/bin/sh", "stuck.sh"], "protocol": 1,
  "widgets": [ { "kind": "wait", "displayName": "Stuck",
                 "placeholder": { "type": "text", "spans": [{ "text": "waiting…", "role": "placeholder" }] } } ],
  "limits": { "requestSeconds": 1 } }
"""#
private let stuckScript = #"""
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;; esac
done
"""#

@Suite("extensions, end to end", .serialized, .onOwnThreads)
struct ExtensionEndToEndTests {
    @Test("the POSIX sh example's panel shows its timeline; a hung extension's panel says it timed out; q stops both")
    func examplePanel() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        for folder in ["/.config", "/.config/widgethost", "/.config/widgethost/extensions", "/.config/widgethost/extensions/stuck", "/state"] {
            mkdir(home.path + folder, 0o755)
        }
        try home.write(".config/widgethost/extensions/stuck/extension.json", stuckManifest)
        try home.write(".config/widgethost/extensions/stuck/stuck.sh", stuckScript)
        let config = try home.write("config.json", #"""
            { "panels": [ { "kind": "hourglass/hour", "options": { "label": "the test" } },
                          { "kind": "stuck/wait" },
                          { "kind": "clock", "options": { "timeZone": "UTC" } } ] }
            """#)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"])
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state",
                                 "--extensions-dir", examples],
                       size: (100, 20), environment: environment)
        tmux.waitFor(description: "the hourglass panel with minutes left in the test, and the stuck panel timed out") { screen in
            screen.contains { $0.contains("min left in the test") } && screen.contains { $0.contains("load ") }
                && screen.contains { $0.contains("timed out after 1 s") }
        }
        let log = { (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? "" }
        #expect(log().contains("extension hourglass: started (pid "))
        #expect(log().contains("extension hourglass stderr: hourglass: started"))
        let pids = pids(in: log())
        #expect(pids.count == 2, "\(log())")
        #expect(pids.allSatisfy { kill($0, 0) == 0 })
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
        // Quitting stops every extension (SIGTERM to its group); nothing is left behind.
        #expect(pollUntil(seconds: 5) { pids.allSatisfy { kill($0, 0) != 0 } }, "still running: \(pids)")
    }

    @Test("the Python example shows the Emoji Rangers board it had the host download")
    func pythonExample() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        mkdir(home.path + "/state", 0o700)
        let server = try LeaderboardProcess.start(arguments: ["--quiet"], logDirectory: home.path)
        defer { server.stop() }
        let config = try home.write("config.json", """
            { "panels": [ { "kind": "rangers/team", "family": "large", "options": { "url": "\(server.url)" } } ] }
            """)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state",
                                 "--extensions-dir", examples],
                       size: (80, 24), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"]))
        tmux.waitFor(timeout: .seconds(20), description: "the rangers panel with the six heroes") { screen in
            screen.contains { $0.contains("6 heroes") } && screen.contains { $0.contains("Octo") && $0.contains("86463") }
                && screen.contains { $0.contains("team health") }
        }
        let log = (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? ""
        #expect(log.contains("extension rangers: download 1 in session board"))
        #expect(log.contains("extension rangers: delivered 1 event(s) of session board"))
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
    }

    @Test("sitewatch (written from the docs alone) shows a server up, then down with the reason after c")
    func sitewatchExample() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        mkdir(home.path + "/state", 0o700)
        let server = try LeaderboardProcess.start(arguments: ["--quiet"], logDirectory: home.path)
        defer { server.stop() }
        let health = server.url.replacing("/leaderboard", with: "/healthz")
        let config = try home.write("config.json", """
            { "panels": [ { "kind": "sitewatch/status", "family": "large",
                            "options": { "name": "Test server", "url": "\(health)", "every": 300, "expect": "ok" } } ] }
            """)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state",
                                 "--extensions-dir", examples],
                       size: (80, 24), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"]))
        tmux.waitFor(timeout: .seconds(20), description: "the panel titled by its name option, the server up") { screen in
            screen.contains { $0.contains("Test server") } && screen.contains { $0.contains("● UP") }
                && screen.contains { $0.contains("c check now") }
        }
        server.stop()
        try tmux.sendText("c")
        tmux.waitFor(timeout: .seconds(20), description: "down, with the host's reason") { screen in
            screen.contains { $0.contains("✖ DOWN") } && screen.contains { $0.contains("refused") }
        }
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
    }

    @Test("stopped by idle exit while its download runs: the finished download relaunches it with the events")
    func relaunchedForEvents() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        for folder in ["/state", "/ext", "/ext/rangers"] { mkdir(home.path + folder, 0o755) }
        // The example with a 1 s idle exit, beside a server that takes 4 s to answer.
        let manifest = try FileContents.text(at: examples + "/rangers/extension.json")
            .replacingIdleExit(with: 1)
        try home.write("ext/rangers/extension.json", manifest)
        try home.write("ext/rangers/rangers.py", try FileContents.text(at: examples + "/rangers/rangers.py"))
        let server = try LeaderboardProcess.start(arguments: ["--quiet", "--delay-ms", "4000"], logDirectory: home.path)
        defer { server.stop() }
        let config = try home.write("config.json", """
            { "panels": [ { "kind": "rangers/team", "family": "large", "options": { "url": "\(server.url)" } } ] }
            """)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state",
                                 "--extensions-dir", home.path + "/ext"],
                       size: (80, 24), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"]))
        tmux.waitFor(timeout: .seconds(30), description: "the rangers panel with the board") { screen in
            screen.contains { $0.contains("6 heroes") }
        }
        let log = (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? ""
        let lines = log.split(separator: "\n").map(String.init)
        let idle = lines.firstIndex { $0.contains("extension rangers: idle for 1 s; shutting down") }
        let relaunch = lines.firstIndex { $0.contains("extension rangers: started (pid") && $0.contains("launch 2)") }
        let delivered = lines.firstIndex { $0.contains("extension rangers: delivered 1 event(s) of session board") }
        #expect(idle != nil && relaunch != nil && delivered != nil, "\(log)")
        if let idle, let relaunch, let delivered { #expect(idle < relaunch && relaunch < delivered, "\(log)") }
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
    }

    @Test("host SIGKILLed while the extension's download is in flight: the next host resumes it, launches the extension with the events")
    func hostKilledMidDownload() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        mkdir(home.path + "/state", 0o700)
        let server = try LeaderboardProcess.start(arguments: ["--quiet", "--delay-ms", "3000"], logDirectory: home.path)
        defer { server.stop() }
        let config = try home.write("config.json", """
            { "panels": [ { "kind": "rangers/team", "family": "large", "options": { "url": "\(server.url)" } } ] }
            """)
        let command = [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state",
                       "--extensions-dir", examples]
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"])
        let log = { (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? "" }
        let first = TmuxHarness()
        defer { first.stop() }
        try first.start(command: command, size: (80, 24), environment: environment)
        #expect(pollUntil(seconds: 10) { log().contains("extension rangers: download 1 in session board") }, "\(log())")
        try first.kill(signal: SIGKILL)
        #expect(first.waitForExit() == .signalled(SIGKILL))
        #expect(!log().contains("delivered 1 event(s)"))

        let second = TmuxHarness()
        defer { second.stop() }
        try second.start(command: command, size: (80, 24), environment: environment)
        second.waitFor(timeout: .seconds(20), description: "the board, from the download the first host started") { screen in
            screen.contains { $0.contains("6 heroes") }
        }
        let restarted = log().components(after: "starting widgethost")
        #expect(restarted.contains("resumed 1 background transfer(s)"), "\(restarted)")
        #expect(restarted.contains("extension rangers: delivered 1 event(s) of session board"), "\(restarted)")
        try second.sendText("q")
        #expect(second.waitForExit() == .exited(0))
        // The journal is clean: nothing pending, nothing running.
        let sessions = try Subprocess.run([try BuiltProducts.executable("widgethost"), "sessions", "--state-dir", home.path + "/state"],
                                          environment: environment, timeout: TestTimeScale.scaled(.seconds(20)))
        #expect(sessions.standardOutput == "No background sessions in \(home.path)/state.\n")
    }

    @Test("host SIGKILLed while a download with headers runs: the next host fails it (the headers were not kept), the extension asks again and shows the board")
    func hostKilledMidHeaderDownload() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        for folder in ["/state", "/ext", "/ext/rangers"] { mkdir(home.path + folder, 0o755) }
        for file in ["extension.json", "rangers.py"] {
            try home.write("ext/rangers/" + file, try FileContents.text(at: examples + "/rangers/" + file))
        }
        try home.write("ext/rangers/token", "s3cret-e2e\n")
        let server = try LeaderboardProcess.start(arguments: ["--quiet", "--delay-ms", "3000"], logDirectory: home.path)
        defer { server.stop() }
        let config = try home.write("config.json", """
            { "panels": [ { "kind": "rangers/team", "family": "large", "options": { "url": "\(server.url)" } } ] }
            """)
        let command = [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state",
                       "--extensions-dir", home.path + "/ext", "--debug"]
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"])
        let log = { (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? "" }
        let first = TmuxHarness()
        defer { first.stop() }
        try first.start(command: command, size: (80, 24), environment: environment)
        #expect(pollUntil(seconds: 10) { log().contains("extension rangers: download 1 in session board with 1 header(s)") }, "\(log())")
        try first.kill(signal: SIGKILL)
        #expect(first.waitForExit() == .signalled(SIGKILL))

        let second = TmuxHarness()
        defer { second.stop() }
        try second.start(command: command, size: (80, 24), environment: environment)
        second.waitFor(timeout: .seconds(20), description: "the board, downloaded again with the token") { screen in
            screen.contains { $0.contains("6 heroes") }
        }
        let restarted = log().components(after: "starting widgethost")
        #expect(restarted.contains("extension rangers: download 1 had headers, which were not kept; failed, not resumed"), "\(restarted)")
        #expect(restarted.contains(#""status":"failed","error":"the host stopped while this download ran"#), "\(restarted)")
        #expect(restarted.contains("extension rangers: download 2 in session board with 1 header(s)"), "\(restarted)")
        #expect(!restarted.contains("resumed 1 background transfer(s)"), "\(restarted)")
        #expect(!log().contains("s3cret"))
        try second.sendText("q")
        #expect(second.waitForExit() == .exited(0))
        let sessions = try Subprocess.run([try BuiltProducts.executable("widgethost"), "sessions", "--state-dir", home.path + "/state"],
                                          environment: environment, timeout: TestTimeScale.scaled(.seconds(20)))
        #expect(sessions.standardOutput == "No background sessions in \(home.path)/state.\n")
    }

    @Test("config reloads find extensions again: one added is usable, one removed says so on its panel")
    func rediscoveredOnReload() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        for folder in ["/state", "/ext"] { mkdir(home.path + folder, 0o755) }
        let config = try home.write("config.json", #"{ "panels": [ { "kind": "clock", "options": { "timeZone": "UTC" } } ] }"#)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state",
                                 "--extensions-dir", home.path + "/ext"],
                       size: (100, 20), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"]))
        tmux.waitFor(description: "the clock") { screen in screen.contains { $0.contains("┌ UTC ") } }
        // Installed while the dashboard runs, then named in the config: found at the reload.
        mkdir(home.path + "/ext/hourglass", 0o755)
        try home.write("ext/hourglass/hourglass.sh", try FileContents.text(at: examples + "/hourglass/hourglass.sh"))
        try home.write("ext/hourglass/extension.json", try FileContents.text(at: examples + "/hourglass/extension.json"))
        let both = #"{ "panels": [ { "kind": "clock", "options": { "timeZone": "UTC" } }, { "kind": "hourglass/hour", "options": { "label": "the reload" } } ] }"#
        try home.write("config.json", both)
        tmux.waitFor(description: "the new extension's panel") { screen in screen.contains { $0.contains("min left in the reload") } }
        // Removed, then the config saved again: its panel says why.
        unlink(home.path + "/ext/hourglass/extension.json")
        try home.write("config.json", both + "\n")
        tmux.waitFor(description: "the removed extension's panel says so") { screen in
            screen.joined(separator: " ").contains("was removed")
        }
        let log = (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? ""
        #expect(log.contains("extension hourglass: found at the config reload"), "\(log)")
        #expect(log.contains("extension hourglass: removed at the config reload"), "\(log)")
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
    }

    @Test("a refused manifest is named in the status bar (fitting at 100 columns) and in the log as refused; fixed and the config saved, the word goes (issue 22, item 13)")
    func refusedManifestNotice() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        for folder in ["/state", "/ext", "/ext/hourglass"] { mkdir(home.path + folder, 0o755) }
        try home.write("ext/hourglass/hourglass.sh", try FileContents.text(at: examples + "/hourglass/hourglass.sh"))
        let manifest = try FileContents.text(at: examples + "/hourglass/extension.json")
        let broken = manifest.replacing("\"protocol\": 1", with: "\"protocol\": 7")
        #expect(broken != manifest)
        try home.write("ext/hourglass/extension.json", broken)
        let panels = #"{ "panels": [ { "kind": "clock", "options": { "timeZone": "UTC" } }, { "kind": "hourglass/hour", "options": { "label": "the fix" } } ] }"#
        // Its kind is unknown while refused: the config names only the clock at first.
        let config = try home.write("config.json", #"{ "panels": [ { "kind": "clock", "options": { "timeZone": "UTC" } } ] }"#)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state",
                                 "--extensions-dir", home.path + "/ext"],
                       size: (100, 20), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"]))
        tmux.waitFor(description: "the notice naming the extension") { screen in
            screen.last?.contains("│ extension hourglass skipped: see widgethost.log ") == true
        }
        // Fixed, and the config saved: the word goes, the panel works.
        try home.write("ext/hourglass/extension.json", manifest)
        try home.write("config.json", panels + "\n")
        tmux.waitFor(description: "the panel working and the notice gone") { screen in
            screen.contains { $0.contains("min left in the fix") } && screen.last?.contains("skipped") == false
        }
        // Broken again at a reload: refused, not "removed", in the log.
        try home.write("ext/hourglass/extension.json", broken)
        try home.write("config.json", panels)
        tmux.waitFor(description: "the notice back") { screen in screen.last?.contains("extension hourglass skipped") == true }
        let log = (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? ""
        #expect(log.contains("extension hourglass: refused (see above) at the config reload"), "\(log)")
        #expect(!log.contains("hourglass: removed"), "\(log)")
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
    }

    @Test("Ctrl-C during extension run and preview stops the extension, which is in a process group of its own and ignores SIGINT, SIGTERM and EOF; exit 130", arguments: [["extension", "run"], ["preview"]])
    func interruptStopsExtension(_ command: [String]) throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        mkdir(home.path + "/stubborn", 0o755)
        try home.write("stubborn/extension.json", #"""
            { "name": "stubborn", "exec": ["/bin/sh", "stubborn.sh"], "protocol": 1, "limits": { "requestSeconds": 60 },
              "widgets": [ { "kind": "wait", "displayName": "Stubborn" } ] }
            """#)
        try home.write("stubborn/stubborn.sh", #"""
            trap '' INT TERM
            echo $$ > pid  # in its folder, the working directory
            while true; do
                if IFS= read -r line; then
                    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
                    case "$line" in *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;; esac
                else
                    sleep 1
                fi
            done
            """#)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"])
        try tmux.start(command: [try BuiltProducts.executable("widgethost")] + command + ["stubborn/wait", "--extensions-dir", home.path],
                       size: (100, 20), environment: environment)
        var pid: pid_t?
        #expect(pollUntil(seconds: 10) {
            pid = (try? FileContents.text(at: home.path + "/stubborn/pid")).flatMap { pid_t($0.prefix { $0.isNumber }) }
            return pid != nil
        }, "the extension started")
        let started = try #require(pid)
        #expect(kill(started, 0) == 0, "running")
        try tmux.sendKeys("C-c")
        #expect(tmux.waitForExit() == .exited(130))
        #expect(pollUntil(seconds: 5) { kill(started, 0) != 0 }, "the extension (pid \(started)) is gone")
    }

    /// The pids of "extension NAME: started (pid N, launch 1)" log lines.
    private func pids(in log: String) -> [pid_t] {
        log.split(separator: "\n").compactMap { line -> pid_t? in
            let parts = line.split(separator: ": started (pid ", maxSplits: 1)
            guard parts.count == 2, line.contains("extension ") else { return nil }
            return pid_t(parts[1].prefix { $0.isNumber })
        }
    }

    private func pollUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + TestTimeScale.scaled(.milliseconds(Int64(seconds * 1000)))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}

private extension String {
    /// What follows the last occurrence of `marker` (the whole text when it is absent).
    func components(after marker: String) -> String {
        var rest = Substring(self)
        while let index = rest.firstRange(of: marker) { rest = rest[index.upperBound...] }
        return String(rest)
    }

    /// The manifest with `"idleExitSeconds": N` in place of the example's value.
    func replacingIdleExit(with seconds: Int) -> String {
        split(separator: "\n", omittingEmptySubsequences: false).map { line in
            guard line.contains("\"idleExitSeconds\"") else { return String(line) }
            return "  \"limits\": { \"requestSeconds\": 10, \"idleExitSeconds\": \(seconds), \"memoryMiB\": 256, \"cpuSeconds\": 60 }"
        }.joined(separator: "\n")
    }
}
