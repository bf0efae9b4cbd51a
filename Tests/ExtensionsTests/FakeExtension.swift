#if canImport(Glibc)
import Glibc
#endif
@testable import Extensions
import HostProcesses
import Synchronization
import WidgetTestSupport

/// A fake extension for one test: a scratch directory holding an `extension.json` whose
/// `exec` runs one of the scripts in `Fixtures/` with /bin/sh, a state directory, and a
/// runtime whose log lines the test can read.
final class FakeExtension: Sendable {
    static let fixtures: String = {
        let here = #filePath
        return String(here[..<here.lastIndex(of: "/")!]) + "/Fixtures"
    }()

    let scratch: ScratchDirectory
    let manifest: ExtensionManifest
    let runtime: ExtensionRuntime
    let spawner = ProcessSpawner()
    private let log = RecordedEvents<String>()

    var host: ExtensionHost { runtime.hosts[0] }
    var logLines: [String] { log.values }
    var stateDirectory: String { scratch.path + "/state" }

    /// - Parameters:
    ///   - script: a file in `Fixtures/`.
    ///   - limits: the manifest's `limits` object, as JSON text.
    ///   - clock: the runtime's clock (a `TestExtensionClock` for simulated time).
    init(script: String, name: String = "fake", limits: String = #"{"requestSeconds": 2, "idleExitSeconds": 30}"#,
         widgets: String? = nil, debug: Bool = false, clock: any ExtensionClock = SystemExtensionClock()) throws {
        scratch = try ScratchDirectory()
        let folder = scratch.path + "/" + name
        mkdir(folder, 0o755)
        mkdir(scratch.path + "/state", 0o700)
        let text = """
            {"name": "\(name)", "exec": ["/bin/sh", "\(Self.fixtures)/\(script)"], "protocol": 1,
             "widgets": \(widgets ?? #"[{"kind": "panel", "displayName": "Panel"}]"#),
             "limits": \(limits)}
            """
        try scratch.write("\(name)/extension.json", text)
        manifest = try ExtensionManifestParser.parse(Array(text.utf8), file: folder + "/extension.json", directory: folder)
        runtime = ExtensionRuntime(manifests: [manifest], debug: debug, clock: clock)
        runtime.setLog { [weak self] level, message in self?.append("\(level.rawValue): \(message)") }
        runtime.hosts[0].bind(spawner: spawner, environment: ["PATH": "/usr/bin:/bin"], stateDirectory: scratch.path + "/state")
    }

    private func append(_ line: String) { log.append(line) }

    /// Waits until the log has a line that `matches` (or had one), at most `seconds` of real
    /// time: the line's arrival ends the wait, no polling.
    func logged(within seconds: Double = 30, _ matches: @escaping @Sendable (String) -> Bool) async -> Bool {
        await log.wait(within: seconds) { $0.contains(where: matches) }
    }

    /// Waits until the log has `count` lines that `matches`, at most `seconds` of real time.
    func logged(count: Int, within seconds: Double = 30, _ matches: @escaping @Sendable (String) -> Bool) async -> Bool {
        await log.wait(within: seconds) { $0.lazy.filter(matches).count >= count }
    }

    /// With `debug`: waits until the host has sent its `count`th `method` request (it is pending,
    /// its deadline set, once the line is logged).
    func sent(_ method: String, count: Int = 1, within seconds: Double = 30) async -> Bool {
        await logged(count: count, within: seconds) { $0.hasPrefix("debug: \(self.manifest.name) → {") && $0.contains("\"method\":\"\(method)\"") }
    }

    /// `logged` for one exact line.
    func logged(_ line: String, within seconds: Double = 30) async -> Bool {
        await logged(within: seconds) { $0 == line }
    }

    /// Stops what still runs, reaps it, removes the files.
    func close() {
        runtime.stopAll()
        _ = spawner.reapExited()
        scratch.remove()
    }

    /// A timeline request as a panel would send it.
    func timeline(instance: String = "panel#1", userInitiated: Bool = false) async throws(ExtensionError) -> JSONValueSummary {
        let params = RPCMessage.object([
            ("kind", .string("panel")), ("instance", .string(instance)), ("family", .string("small")),
            ("size", RPCMessage.object([("columns", .integer(20)), ("rows", .integer(5))])),
            ("options", RPCMessage.object([])), ("isPreview", .bool(false)), ("userInitiated", .bool(userInitiated)),
        ])
        let value = try await host.request("timeline", params: params, userInitiated: userInitiated)
        return JSONValueSummary(text: value.jsonText)
    }

    /// How process `pid` ended, once it has been reaped (waiting at most `seconds`); nil if not.
    func exit(of pid: pid_t, within seconds: Double) async -> ProcessExit? {
        var exit: ProcessExit?
        _ = await eventually(within: seconds) {
            exit = spawner.reapExited().first { $0.0.pid == pid }?.1 ?? exit
            return exit != nil
        }
        return exit
    }
}

/// An answer's compact JSON, for expectations.
struct JSONValueSummary: Sendable, Equatable {
    var text: String
}
