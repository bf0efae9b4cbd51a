#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetTestSupport

/// `widgethost activity` and `events` against the real binary in tmux (issue 27's checks).
@Suite("Live Activities, end to end", .serialized, .onOwnThreads)
struct ActivityEndToEndTests {
    /// A dashboard of an activities and an events panel on the default state directory of a
    /// private home (so `widgethost activity …` needs no `--state-dir`), its runtime directory
    /// `home/run`.
    private struct Running {
        let home: ScratchDirectory
        let environment: [String: String]
        let config: String
        var tmux = TmuxHarness()

        /// `notify`: the config's top-level notify object (JSON), if any.
        init(notify: String? = nil) throws {
            home = try ScratchDirectory()
            let runtime = home.path + "/run"
            mkdir(runtime, 0o700)
            let binaries = try BuiltProducts.directory()
            environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: [
                "XDG_RUNTIME_DIR": runtime, "PATH": binaries + ":/usr/local/bin:/usr/bin:/bin", "TZ": "UTC"])
            let notifyKey = notify.map { "\"notify\": \($0)," } ?? ""
            config = try home.write("config.json", """
                { \(notifyKey) "panels": [ { "kind": "activities", "family": "medium", "title": "Activities" },
                              { "kind": "events", "family": "medium", "title": "Events" } ] }
                """)
            try start()
        }

        func start() throws {
            try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config], size: (90, 24),
                           environment: environment)
            tmux.waitFor(description: "the dashboard") { anyRow($0, containsAll: "┌ Activities") && anyRow($0, containsAll: "┌ Events") }
        }

        func run(_ arguments: [String]) throws -> Subprocess.Result {
            try Subprocess.run([try BuiltProducts.executable("widgethost")] + arguments, environment: environment,
                               timeout: TestTimeScale.scaled(.seconds(10)))
        }

        func activity(_ arguments: String...) throws -> Subprocess.Result { try run(["activity"] + arguments) }

        func stop() {
            tmux.stop()
            home.remove()
        }
    }

    @Test("start shows within 200 ms, update moves the bar, kill -9 and restart keeps it, end in failure turns it negative and is an event")
    func lifecycle() throws {
        var running = try Running()
        defer { running.stop() }
        let started = try running.activity("start", "build", "--title", "Build app", "--progress", "0.2")
        #expect(started.status == 0, "\(started.standardError)")
        let returned = ContinuousClock.now
        running.tmux.waitFor(timeout: .milliseconds(200), description: "the activity within 200 ms of the command returning") {
            anyRow($0, containsAll: "⏵ Build app") && anyRow($0, containsAll: "20%")
        }
        let shown = ContinuousClock.now - returned
        let updated = try running.activity("update", "build", "--progress", "0.8", "--detail", "linking")
        #expect(updated.status == 0)
        running.tmux.waitFor(description: "the bar at 80%") { anyRow($0, containsAll: "80%") && anyRow($0, containsAll: "linking") }
        print("activity start → screen: \(shown)")

        // Killed without a chance to clean up: the journal keeps the activity.
        kill(try running.tmux.pid, SIGKILL)
        _ = running.tmux.waitForExit()
        let listed = try running.activity("list", "--json")
        #expect(listed.status == 0 && listed.standardOutput.contains(#""id":"build","title":"Build app","detail":"linking","progress":0.8,"state":"active""#),
                "list reads the journal with no dashboard: \(listed.standardOutput)")
        let down = try running.activity("update", "build", "--progress", "0.9")
        #expect(down.status == 1 && down.standardError.contains("no dashboard is running for"))
        running.tmux = TmuxHarness()
        try running.start()
        running.tmux.waitFor(description: "the activity again after the restart") {
            anyRow($0, containsAll: "⏵ Build app") && anyRow($0, containsAll: "80%")
        }

        let ended = try running.activity("end", "build", "--state", "failure", "--detail", "2 tests failed")
        #expect(ended.status == 0, "\(ended.standardError)")
        running.tmux.waitFor(description: "the failure and its event") {
            anyRow($0, containsAll: "✖ Build app", "failure") && anyRow($0, containsAll: "⚠ build failed: 2 tests failed")
        }
        let again = try running.activity("end", "build")
        #expect(again.status == 2 && again.standardError == "widgethost activity: activity 'build' has ended\n")
        let events = try running.run(["events", "--json"])
        let lines = events.standardOutput.split(separator: "\n")
        #expect(lines.count == 3, "a start, an end and its alert: \(events.standardOutput)")
        #expect(lines.dropFirst().first?.contains(#""kind":"activity","panel":null,"title":"Build app","level":"critical","text":"build failed: 2 tests failed"}"#) == true)
        #expect(lines.last?.contains(#""kind":"alert","panel":"Activities""#) == true)
    }

    @Test("the README's Python loop and make-test line drive the dashboard; bad input is a clear message")
    func readmeExamples() throws {
        let running = try Running()
        defer { running.stop() }
        let readme = try FileContents.text(at: SourceTree.root + "/README.md")
        let marker = try #require(readme.range(of: "<!-- activity-snippet -->\n```python\n"))
        let end = try #require(readme.range(of: "```\n<!-- end activity-snippet -->"))
        let script = try running.home.write("import.py", String(readme[marker.upperBound..<end.lowerBound]))
        let ran = try Subprocess.run(["/usr/bin/python3", script], environment: running.environment, timeout: TestTimeScale.scaled(.seconds(30)))
        #expect(ran.status == 0, "\(ran.standardError)")
        running.tmux.waitFor(description: "the import done") { anyRow($0, containsAll: "✔ Importing photos") && anyRow($0, containsAll: "5 photos") }

        let make = try Subprocess.run(["/bin/sh", "-c", """
            widgethost activity start tests --title Tests && false; widgethost activity end tests --state $([ $? = 0 ] && echo success || echo failure)
            """], environment: running.environment, timeout: TestTimeScale.scaled(.seconds(20)))
        #expect(make.status == 0, "\(make.standardError)")
        running.tmux.waitFor(description: "the tests failed") { anyRow($0, containsAll: "✖ Tests", "failure") }

        let badID = try running.activity("start", "my build", "--title", "x")
        #expect(badID.status == 2 && badID.standardError.hasPrefix("widgethost activity: 'my build' is not an activity ID"))
        let control = try running.activity("start", "evil", "--title", "\u{1B}]52;c;aGk=\u{07}red")
        #expect(control.status == 0)
        running.tmux.waitFor(description: "the escape shown inert") { anyRow($0, containsAll: "␛]52;c;aGk=␇red") }
        var bare = running.environment
        bare["XDG_RUNTIME_DIR"] = nil
        let noRuntime = try Subprocess.run([try BuiltProducts.executable("widgethost"), "activity", "update", "tests", "--progress", "1"],
                                           environment: bare, timeout: TestTimeScale.scaled(.seconds(10)))
        #expect(noRuntime.status == 1 && noRuntime.standardError.contains("has no control socket at") &&
                noRuntime.standardError.contains("started with another XDG_RUNTIME_DIR"), "\(noRuntime.standardError)")
    }

    @Test("a failed activity is an alert: the border turns negative, an alert event is recorded, notify's command runs once per cooldown")
    func alertNotifies() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let notes = home.path + "/notes"
        let script = try home.write("notify.sh", "#!/bin/sh\nprintf '%s|%s\\n' \"$1\" \"$2\" >> \(notes)\n")
        chmod(script, 0o755)
        let running = try Running(notify: """
            { "bell": true, "desktop": true, "cooldownSeconds": 300, "command": ["\(script)", "{title}", "{text}"] }
            """)
        defer { running.stop() }
        #expect(try running.activity("start", "deploy", "--title", "Deploy").status == 0)
        running.tmux.waitFor(description: "the activity") { anyRow($0, containsAll: "⏵ Deploy") }
        let calm = try running.tmux.capture(escapes: true).first ?? ""
        #expect(try running.activity("end", "deploy", "--state", "failure", "--detail", "health check").status == 0)
        running.tmux.waitFor(description: "the notify command's line") { _ in
            ((try? FileContents.text(at: notes)) ?? "") == "Activities|Deploy failed: health check\n"
        }
        let events = try running.run(["events", "--json"]).standardOutput
        #expect(events.contains(#""kind":"alert","panel":"Activities","title":"Activities","level":"critical","text":"Deploy failed: health check"}"#),
                "\(events)")
        let border = try running.tmux.capture(escapes: true).first ?? ""
        #expect(border != calm, "the border's colour changed: \(border.debugDescription)")
        // A second failure within the cooldown is recorded but does not run the command again.
        #expect(try running.activity("start", "deploy", "--title", "Deploy").status == 0)
        #expect(try running.activity("end", "deploy", "--state", "failure").status == 0)
        running.tmux.waitFor(description: "the second failure's event") { $0.filter { $0.contains("deploy failed") }.count == 2 }
        #expect(((try? FileContents.text(at: notes)) ?? "").split(separator: "\n").count == 1)
    }

    @Test("a dashboard whose runtime directory cannot be made runs without a socket, and the command says so")
    func noRuntimeDirectory() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["XDG_RUNTIME_DIR": home.path + "/missing/run"])
        let config = try home.write("config.json", #"{ "panels": [ { "kind": "activities", "family": "medium", "title": "Activities" } ] }"#)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config], size: (80, 20), environment: environment)
        tmux.waitFor(description: "the dashboard") { anyRow($0, containsAll: "no activities") }
        let asked = try Subprocess.run([try BuiltProducts.executable("widgethost"), "activity", "start", "b", "--title", "B"],
                                       environment: environment, timeout: TestTimeScale.scaled(.seconds(10)))
        #expect(asked.status == 1)
        #expect(asked.standardError.contains("has no control socket at \(home.path)/missing/run/widgethost/control-")
                && asked.standardError.contains("widgethost.log, says why)"), "\(asked.standardError)")
        let log = (try? FileContents.text(at: home.path + "/.local/state/widgethost/widgethost.log")) ?? ""
        #expect(log.contains("no control socket: cannot make \(home.path)/missing/run/widgethost"), "\(log)")
    }
}
