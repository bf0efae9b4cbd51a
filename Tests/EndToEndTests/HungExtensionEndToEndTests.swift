#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetTestSupport

/// An extension that answers `initialize` and never a timeline, with a request timeout of
/// `seconds` (30: far longer than any wait below).
private func hungManifest(requestSeconds seconds: Int) -> String {
    #"""
    { "name": "hung", "exec": ["/bin/sh", "hung.sh"], "protocol": 1,
      "widgets": [ { "kind": "wait", "displayName": "Hung",
                     "options": { "n": { "type": "integer", "default": 0, "doc": "tells panels apart" } } } ],
      "limits": { "requestSeconds": \#(seconds) } }
    """#
}
private let hungScript = #"""
while IFS= read -r line; do
    id=$(printf '%s\n' "$line" | sed -n 's/^{"jsonrpc":"2.0","id":\([0-9]*\),.*/\1/p')
    case "$line" in *'"method":"initialize"'*) printf '{"jsonrpc":"2.0","id":%s,"result":{"protocol":1}}\n' "$id" ;; esac
done
"""#

/// An extension that never reads its stdin and ignores SIGTERM; its panel's option (a list of
/// strings, each at most 4096 characters) is larger than a pipe holds, so the host's
/// `timeline` request fills the pipe.
private let deafManifest = #"""
{ "name": "deaf", "exec": ["/bin/sh", "deaf.sh"], "protocol": 1,
  "widgets": [ { "kind": "wait", "displayName": "Deaf",
                 "options": { "blob": { "type": "stringList", "default": [], "doc": "a large option" } } } ],
  "limits": { "requestSeconds": 30 } }
"""#
private let deafScript = """
trap '' TERM
while true; do sleep 1; done
"""

@Suite("hung extensions, end to end", .serialized, .onOwnThreads)
struct HungExtensionEndToEndTests {
    @Test("five panels of a hung extension: a seconds clock and a text panel still show and tick")
    func hungPanelsHoldUpNoOther() throws {
        let home = try Self.home(extension: "hung", manifest: hungManifest(requestSeconds: 30), script: hungScript)
        defer { home.remove() }
        let hung = (0..<5).map { #"{ "kind": "hung/wait", "options": { "n": \#($0) } }"# }.joined(separator: ", ")
        let config = try home.write("config.json", """
            { "panels": [ \(hung),
                          { "kind": "clock", "options": { "timeZone": "UTC", "seconds": true, "hour24": true } },
                          { "kind": "text", "options": { "text": "plain words here" } } ] }
            """)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state"],
                       size: (120, 30), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"]))
        let first = tmux.waitFor(description: "the text panel and the clock, with seconds") { screen in
            screen.contains { $0.contains("plain words here") } && Self.clockTime(screen) != nil
        }
        let shown = Self.clockTime(first)
        tmux.waitFor(description: "the clock ticking") { screen in
            Self.clockTime(screen).map { $0 != shown } ?? false
        }
        let log = (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? ""
        #expect(log.contains("extension hung: started (pid "), "\(log)")
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
    }

    @Test("a hung extension's request times out (logged); r on its panel relaunches it")
    func userReloadRelaunchesAHungExtension() throws {
        let home = try Self.home(extension: "hung", manifest: hungManifest(requestSeconds: 1), script: hungScript)
        defer { home.remove() }
        let config = try home.write("config.json", """
            { "panels": [ { "kind": "hung/wait" }, { "kind": "clock", "options": { "timeZone": "UTC" } } ] }
            """)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state"],
                       size: (100, 20), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"]))
        tmux.waitFor(description: "the hung panel timed out") { screen in screen.contains { $0.contains("timed out after 1 s") } }
        let log = { (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? "" }
        #expect(log().contains("extension hung: timeline for wait#1 timed out after 1 s"), "\(log())")
        let first = try #require(Self.pids(in: log()).first)
        try tmux.sendText("r")  // the first panel has the focus
        #expect(Self.pollUntil(seconds: 10) { Self.pids(in: log()).count == 2 }, "relaunched: \(log())")
        #expect(log().contains("extension hung: a request timed out; relaunched for a reload (r)"))
        #expect(Self.pollUntil(seconds: 5) { kill(first, 0) != 0 || Self.isZombie(first) }, "the hung process (pid \(first)) is stopped")
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
    }

    /// How the host is told to quit.
    enum Quit: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case q = "q", sigterm = "SIGTERM"
        var testDescription: String { rawValue }
    }

    @Test("an extension that never reads its stdin, the pipe full: the host quits within a second", arguments: Quit.allCases)
    func quitsWithAFullPipe(_ quit: Quit) throws {
        let home = try Self.home(extension: "deaf", manifest: deafManifest, script: deafScript)
        defer { home.remove() }
        let blob = Array(repeating: "\"" + String(repeating: "x", count: 4000) + "\"", count: 40).joined(separator: ", ")
        let config = try home.write("config.json", """
            { "panels": [ { "kind": "deaf/wait", "options": { "blob": [\(blob)] } },
                          { "kind": "clock", "options": { "timeZone": "UTC" } } ] }
            """)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state"],
                       size: (100, 20), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"]))
        var pid: pid_t?
        #expect(Self.pollUntil(seconds: 10) {
            pid = Self.pids(in: (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? "").first
            return pid != nil
        }, "the extension started")
        let started = try #require(pid)
        // Its stdin holds more than `initialize`: the host is stuck writing the timeline request.
        #expect(Self.pollUntil(seconds: 10) { Self.queuedBytes(standardInputOf: started) > 4096 }, "the pipe filled")
        let asked = ContinuousClock.now
        switch quit {
        case .q: try tmux.sendText("q")
        case .sigterm: try tmux.kill(signal: SIGTERM)
        }
        // Quitting gives extensions 0.5 s, then SIGKILL: about a second (0.52–0.54 s measured on
        // an idle machine), far from the 30 s timeout it waited before. The bound is loose so a
        // loaded machine does not fail it; the figure itself is measured, not asserted here.
        let exit = tmux.waitForExit(timeout: TestTimeScale.scaled(.seconds(10)))
        #expect(exit == .exited(0), "\(String(describing: exit))")
        let took = ContinuousClock.now - asked
        #expect(took < TestTimeScale.scaled(.seconds(10)), "quitting took \(took)")
        #expect(Self.pollUntil(seconds: 5) { kill(started, 0) != 0 }, "the extension (pid \(started)) is gone")
    }

    @Test("a config reload that stops an extension whose stdin is full does not hold up the screen: the clock ticks on")
    func configReloadWithAFullPipe() throws {
        let home = try Self.home(extension: "deaf", manifest: deafManifest, script: deafScript)
        defer { home.remove() }
        let blob = Array(repeating: "\"" + String(repeating: "x", count: 4000) + "\"", count: 40).joined(separator: ", ")
        let text = """
            { "panels": [ { "kind": "deaf/wait", "options": { "blob": [\(blob)] } },
                          { "kind": "clock", "options": { "timeZone": "UTC", "seconds": true, "hour24": true } } ] }
            """
        let config = try home.write("config.json", text)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state"],
                       size: (100, 20), environment: TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"]))
        let log = { (try? FileContents.text(at: home.path + "/state/widgethost.log")) ?? "" }
        #expect(Self.pollUntil(seconds: 10) { Self.pids(in: log()).count == 1 }, "the extension started")
        let started = try #require(Self.pids(in: log()).first)
        #expect(Self.pollUntil(seconds: 10) { Self.queuedBytes(standardInputOf: started) > 4096 }, "the pipe filled")
        // A changed manifest, then the config saved: the reload stops the running process.
        try home.write(".config/widgethost/extensions/deaf/extension.json", deafManifest.replacing(#""requestSeconds": 30"#, with: #""requestSeconds": 29"#))
        try home.write("config.json", text + "\n")
        #expect(Self.pollUntil(seconds: 10) { log().contains("extension deaf: changed; restarted on next need at the config reload") }, "\(log())")
        let shown = Self.clockTime(try tmux.capture())
        tmux.waitFor(timeout: .seconds(3), description: "the clock ticking after the reload") { screen in
            Self.clockTime(screen).map { $0 != shown } ?? false
        }
        #expect(Self.pollUntil(seconds: 5) { kill(started, 0) != 0 || Self.isZombie(started) }, "the old process (pid \(started)) is gone")
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
    }

    /// A home with the extension `name` (its manifest and script) and a state directory.
    private static func home(extension name: String, manifest: String, script: String) throws -> ScratchDirectory {
        let home = try ScratchDirectory()
        for folder in ["/.config", "/.config/widgethost", "/.config/widgethost/extensions", "/.config/widgethost/extensions/\(name)", "/state"] {
            mkdir(home.path + folder, 0o755)
        }
        try home.write(".config/widgethost/extensions/\(name)/extension.json", manifest)
        try home.write(".config/widgethost/extensions/\(name)/\(name).sh", script)
        return home
    }

    /// The pids of "extension NAME: started (pid N, launch 1)" log lines.
    private static func pids(in log: String) -> [pid_t] {
        log.split(separator: "\n").compactMap { line -> pid_t? in
            guard let range = line.firstRange(of: ": started (pid "), line.contains("extension ") else { return nil }
            return pid_t(line[range.upperBound...].prefix { $0.isNumber })
        }
    }

    /// Whether `pid` has ended and waits to be reaped.
    private static func isZombie(_ pid: pid_t) -> Bool {
        guard let stat = try? FileContents.text(at: "/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first == "Z"
    }

    /// The first `HH:MM:SS` on the screen.
    private static func clockTime(_ screen: [String]) -> String? {
        textClockTime(screen) ?? PanelBlankAreas.bigClockFace(ScreenGrid(screen).rows)
    }

    /// The first `HH:MM:SS` on the screen, or nil.
    private static func textClockTime(_ screen: [String]) -> String? {
        for line in screen {
            let characters = Array(line)
            guard characters.count >= 8 else { continue }
            for start in 0...(characters.count - 8) {
                let candidate = characters[start..<(start + 8)]
                let shape = candidate.enumerated().allSatisfy { index, character in
                    index == 2 || index == 5 ? character == ":" : character.isASCII && character.isNumber
                }
                if shape { return String(candidate) }
            }
        }
        return nil
    }

    /// Bytes waiting in process `pid`'s stdin, when it is a pipe (read through a descriptor of
    /// our own on the same pipe, which reads nothing).
    private static func queuedBytes(standardInputOf pid: pid_t) -> Int {
        let descriptor = open("/proc/\(pid)/fd/0", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return 0 }
        defer { close(descriptor) }
        var count: Int32 = 0
        guard ioctl(descriptor, UInt(FIONREAD), &count) == 0 else { return 0 }
        return Int(count)
    }

    private static func pollUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + TestTimeScale.scaled(.milliseconds(Int64(seconds * 1000)))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(20_000)
        }
        return condition()
    }
}
