#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import HostProcesses
import Synchronization
import Testing
@testable import WidgetHost
import WidgetTestSupport

/// An extensions directory of fake extensions, each running a script of the Extensions
/// tests' `Fixtures/` with /bin/sh, and an empty config home.
@MainActor
private final class FakeExtensions {
    static let fixtures: String = {
        let here = #filePath
        let tests = here[..<here.lastIndex(of: "/")!]
        return String(tests[..<tests.lastIndex(of: "/")!]) + "/ExtensionsTests/Fixtures"
    }()

    let scratch: ScratchDirectory
    let spawner = ProcessSpawner()
    final class Lines: Sendable {
        let lines = Mutex<[String]>([])
    }
    let echo = Lines()
    var echoed: [String] { echo.lines.withLock { $0 } }
    var directory: String { scratch.path + "/extensions" }
    var environment: HostEnvironment {
        HostEnvironment(variables: ["XDG_CONFIG_HOME": scratch.path + "/config", "HOME": scratch.path, "TZ": "UTC", "LANG": "C.UTF-8"])
    }

    init() throws {
        scratch = try ScratchDirectory()
        mkdir(scratch.path + "/extensions", 0o755)
        mkdir(scratch.path + "/config", 0o755)
    }

    func add(_ name: String, script: String, limits: String = #"{"requestSeconds": 2}"#,
             widgets: String = #"[{"kind": "panel", "displayName": "Panel", "options": {"city": {"type": "string", "default": "Oslo"}}}]"#) throws {
        mkdir(directory + "/" + name, 0o755)
        try scratch.write("extensions/\(name)/extension.json", """
            {"name": "\(name)", "exec": ["/bin/sh", "\(Self.fixtures)/\(script)"], "protocol": 1,
             "widgets": \(widgets), "limits": \(limits)}
            """)
    }

    func run(_ arguments: [String]) async -> CommandOutput {
        let command: HostCommand
        do {
            command = try CommandLineParser.parse(["extension", "run"] + arguments + ["--extensions-dir", directory])
        } catch {
            return CommandOutput(exitCode: 2, standardError: "\(error)")
        }
        guard case .extensionRun(let options) = command else { return CommandOutput(exitCode: 99) }
        var io = HostIO.live()
        io.environment = environment
        io.processes = spawner
        io.files = FileRoots(state: nil, temporary: "/tmp")
        io.widgetEnvironment = ["PATH": "/usr/bin:/bin"]
        let output = await ExtensionRunCommand.run(options, environment: environment, catalog: .builtin(),
                                                   now: Date(timeIntervalSince1970: 1_796_076_000), io: io) { [echo] line in
            echo.lines.withLock { $0.append(line) }
        }
        return output.inert()
    }

    /// `widgethost preview ARGUMENTS --extensions-dir DIR`, as `main` runs it.
    func preview(_ arguments: [String]) async -> CommandOutput {
        guard case .preview(let options)? = try? CommandLineParser.parse(["preview"] + arguments + ["--extensions-dir", directory])
        else { return CommandOutput(exitCode: 99) }
        var io = HostIO.live()
        io.environment = environment
        io.processes = spawner
        io.files = FileRoots(state: nil, temporary: "/tmp")
        io.widgetEnvironment = ["PATH": "/usr/bin:/bin"]
        let setup = ExtensionSetup.discover(catalog: .builtin(), explicitDirectory: options.extensionsDirectory,
                                            environment: environment)
        defer { setup.runtime.stopAll() }
        return await PreviewCommand.run(options, environment: environment, catalog: setup.catalog,
                                        now: Date(timeIntervalSince1970: 1_796_076_000), io: io, extensions: setup.runtime).inert()
    }

    func close() {
        // The command stopped its extension (SIGTERM); reap it.
        for _ in 0..<100 where spawner.runningCount > 0 {
            _ = spawner.reapExited()
            usleep(10_000)
        }
        scratch.remove()
    }
}

@Suite("extension run", .serialized, .onOwnThreads(.awaitingExtensions))
@MainActor
struct ExtensionRunCommandTests {
    @Test("prints each entry's date, relevance and view drawn as preview draws it, then the policy")
    func prints() async throws {
        let fakes = try FakeExtensions()
        defer { fakes.close() }
        try fakes.add("fake", script: "answers.sh")
        let output = await fakes.run(["fake/panel", "--size", "30x3", "--option", "city=Lima"])
        #expect(output.exitCode == 0, "\(output.standardError)")
        let lines = output.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[0] == "Panel (fake/panel, small, 30x3): 2 entries")
        #expect(lines[1] == "entry 1 of 2 at 2026-11-30T22:00:00Z")
        #expect(lines[2].hasPrefix("┌ Panel ─") && lines[2].count == 32)
        #expect(lines[3] == "│hello panel#1 launch 1        │")
        #expect(lines.contains("entry 2 of 2 at 2026-11-30T22:00:00Z, relevance 2.0 for 60.0 s"))
        #expect(lines.contains("│second                        │"))
        #expect(lines[lines.count - 2] == "policy after 2026-12-01T00:00:00Z")
        #expect(fakes.echoed.isEmpty)
    }

    @Test("--debug echoes every message both ways to stderr as it happens")
    func debug() async throws {
        let fakes = try FakeExtensions()
        defer { fakes.close() }
        try fakes.add("fake", script: "answers.sh")
        let output = await fakes.run(["fake/panel", "--debug"])
        #expect(output.exitCode == 0, "\(output.standardError)")
        let echoed = fakes.echoed
        #expect(echoed.contains { $0.hasPrefix(#"fake → {"jsonrpc":"2.0","id":1,"method":"initialize""#) }, "\(echoed)")
        #expect(echoed.contains { $0.hasPrefix(#"fake → {"jsonrpc":"2.0","id":2,"method":"timeline","params":{"kind":"panel","instance":"panel#1","family":"small","size":{"columns":22,"rows":7},"options":{"city":"Oslo"},"isPreview":false"#) }, "\(echoed)")
        #expect(echoed.contains { $0.hasPrefix(#"fake ← {"jsonrpc":"2.0","id":1,"result":{"protocol":1}}"#) }, "\(echoed)")
        #expect(echoed.contains { $0.hasPrefix(#"fake ← {"jsonrpc":"2.0","id":2,"result":{"entries""#) }, "\(echoed)")
        #expect(echoed.contains { $0.contains("fake stderr: fake extension started") }, "\(echoed)")
    }

    @Test("--snapshot sends snapshot with isPreview and prints the one entry")
    func snapshot() async throws {
        let fakes = try FakeExtensions()
        defer { fakes.close() }
        try fakes.add("snappy", script: "snapshots.sh")
        let output = await fakes.run(["snappy/panel", "--snapshot", "--size", "30x1"])
        #expect(output.exitCode == 0, "\(output.standardError)")
        #expect(output.standardOutput.contains("entry 1 of 1 at 2026-11-30T22:00:00Z, relevance 1.0\n"))
        #expect(output.standardOutput.contains("│snap panel#1 preview=true     │"))
        #expect(output.standardOutput.hasSuffix("policy never\n"))
    }

    @Test("an unknown NAME or KIND exits 2 with a close name; a built-in kind points to preview")
    func unknown() async throws {
        let fakes = try FakeExtensions()
        defer { fakes.close() }
        try fakes.add("weather", script: "answers.sh")
        let name = await fakes.run(["wether/panel"])
        #expect(name == CommandOutput(exitCode: 2, standardError: "widgethost extension run: no extension named 'wether'; did you mean 'weather'?\n"))
        let far = await fakes.run(["zzzzzz/panel"])
        #expect(far.standardError == "widgethost extension run: no extension named 'zzzzzz' (found: weather)\n")
        let kind = await fakes.run(["weather/panle"])
        #expect(kind == CommandOutput(exitCode: 2, standardError: "widgethost extension run: extension 'weather' has no kind 'panle'; did you mean 'weather/panel'?\n"))
        let builtin = await fakes.run(["clock"])
        #expect(builtin.exitCode == 2)
        #expect(builtin.standardError.contains("'clock' is a built-in kind: try 'widgethost preview clock'"))
        let option = await fakes.run(["weather/panel", "--option", "cty=x"])
        #expect(option.exitCode == 2)
        #expect(option.standardError.contains("options.cty"), "\(option.standardError)")
    }

    @Test("a refused manifest exits 2 naming the file and the key path")
    func refused() async throws {
        let fakes = try FakeExtensions()
        defer { fakes.close() }
        try fakes.add("broken", script: "answers.sh", limits: #"{"requestSeconds": 900}"#)
        let output = await fakes.run(["broken/panel"])
        #expect(output.exitCode == 2)
        #expect(output.standardError.hasPrefix("widgethost extension run: extension 'broken' was refused:\n  \(fakes.directory)/broken/extension.json: limits.requestSeconds: "),
                "\(output.standardError)")
    }

    @Test("a crash on start exits 3 with the extension's stderr; a hang exits 4; a bad answer exits 5 with its paths")
    func failures() async throws {
        let fakes = try FakeExtensions()
        defer { fakes.close() }
        try fakes.add("crashes", script: "crashes-on-start.sh")
        try fakes.add("hangs", script: "hangs.sh", limits: #"{"requestSeconds": 1}"#)
        try fakes.add("bad", script: "bad-answer.sh")
        let crash = await fakes.run(["crashes/panel"])
        #expect(crash.exitCode == 3, "\(crash.standardError)")
        #expect(crash.standardError.hasPrefix("widgethost extension run: crashes/panel: the extension stopped: "), "\(crash.standardError)")
        #expect(crash.standardError.contains("crashes stderr: cannot start: missing configuration"), "\(crash.standardError)")
        let hang = await fakes.run(["hangs/panel"])
        #expect(hang == CommandOutput(exitCode: 4, standardError: "widgethost extension run: hangs/panel: timed out after 1 s\n"
                                      + "the extension's last log lines:\n  hangs: timeline for panel#1 timed out after 1 s\n"))
        let bad = await fakes.run(["bad/panel"])
        #expect(bad.exitCode == 5)
        #expect(bad.standardError.contains("bad answer from the extension: entries[0].date: "), "\(bad.standardError)")
        #expect(bad.standardError.contains("policy: expected"), "\(bad.standardError)")
        let badSnapshot = await fakes.run(["bad/panel", "--snapshot"])
        #expect(badSnapshot.exitCode == 5)
        #expect(badSnapshot.standardError.contains("entry: expected an entry object"), "\(badSnapshot.standardError)")
    }

    @Test("sessionEvents answered with an error: reported at once with exit 5, not after the whole wait")
    func eventsRefused() async throws {
        let fakes = try FakeExtensions()
        defer { fakes.close() }
        // The download fails fast (nothing listens on port 9), its event is refused.
        try fakes.add("ev", script: "refuses-events.sh", limits: #"{"requestSeconds": 5}"#,
                      widgets: #"[{"kind": "panel", "displayName": "Panel", "options": {"url": {"type": "url", "default": "http://127.0.0.1:9/board"}}}]"#)
        let started = ContinuousClock.now
        let output = await fakes.run(["ev/panel"])
        let took = ContinuousClock.now - started
        #expect(output.exitCode == 5, "\(output.standardError)")
        #expect(output.standardError.hasPrefix("widgethost extension run: ev/panel: its answer to sessionEvents: extension error 1: cannot read the board\n"),
                "\(output.standardError)")
        #expect(took < .seconds(12), "waited \(took) (the whole wait is 20 s)")
    }

    @Test("preview: sessionEvents answered with an error is reported at once, not after its 10 s wait")
    func previewEventsRefused() async throws {
        let fakes = try FakeExtensions()
        defer { fakes.close() }
        try fakes.add("ev", script: "refuses-events.sh", limits: #"{"requestSeconds": 5}"#,
                      widgets: #"[{"kind": "panel", "displayName": "Panel", "options": {"url": {"type": "url", "default": "http://127.0.0.1:9/board"}}}]"#)
        let started = ContinuousClock.now
        let output = await fakes.preview(["ev/panel"])
        let took = ContinuousClock.now - started
        #expect(output.exitCode == 1, "\(output.standardError)")
        #expect(output.standardError == "widgethost preview: ev/panel: its answer to sessionEvents: extension error 1: cannot read the board\n",
                "\(output.standardError)")
        #expect(took < .seconds(8), "waited \(took) (the whole wait is 10 s)")
    }
}
