#if canImport(Glibc)
import Glibc
#endif
@testable import BackgroundSessions
import Dispatch
@testable import Extensions
import FoundationEssentials
import HostProcesses
import Synchronization
import Testing
import TerminalUI
import WidgetCore
@testable import WidgetHost
import Widgets
import WidgetTestSupport

/// An extensions directory whose contents a test changes between config reloads, and the
/// dashboard's side of a reload: the catalogue, the bound widgets, the rediscovery.
private final class ReloadRig: @unchecked Sendable {
    static let fixtures: String = {
        let here = #filePath
        let tests = here[..<here.lastIndex(of: "/")!]
        return String(tests[..<tests.lastIndex(of: "/")!]) + "/ExtensionsTests/Fixtures"
    }()

    let scratch: ScratchDirectory
    let spawner = ProcessSpawner()
    let transport = FakeTransport()
    let manager: BackgroundSessionManager
    var catalog: Catalog
    var widgets: BoundWidgets
    let runtime: ExtensionRuntime
    let rediscovery: ExtensionRediscovery
    /// What the session router asks, as `DashboardSessions` keeps it.
    let routed = RoutedWidgets()
    var directory: String { scratch.path + "/extensions" }
    var environment: HostEnvironment { HostEnvironment(variables: ["XDG_CONFIG_HOME": scratch.path + "/config", "HOME": scratch.path]) }

    init(_ extensions: [(name: String, script: String)]) throws {
        scratch = try ScratchDirectory()
        mkdir(scratch.path + "/extensions", 0o755)
        mkdir(scratch.path + "/state", 0o700)
        manager = try BackgroundSessionManager.open(stateDirectory: scratch.path + "/state", transport: transport,
                                                    deliveryQueue: DispatchQueue(label: "test.reload.delivery"))
        let environment = HostEnvironment(variables: ["XDG_CONFIG_HOME": scratch.path + "/config", "HOME": scratch.path])
        for (name, script) in extensions { try Self.write(scratch, name: name, script: script) }
        let setup = ExtensionSetup.discover(catalog: .builtin(), explicitDirectory: scratch.path + "/extensions", environment: environment)
        runtime = setup.runtime
        catalog = setup.catalog
        let context = WidgetContext(sessions: manager, stateDirectory: scratch.path + "/state", environment: ["PATH": "/usr/bin:/bin"],
                                    processes: spawner)
        widgets = catalog.bind(context)
        routed.widgets = widgets.widgets
        manager.eventRouter = BackgroundSessionManager.router(for: { [routed] in routed.widgets })  // as the dashboard sets it
        rediscovery = ExtensionRediscovery(explicitDirectory: scratch.path + "/extensions", environment: environment,
                                           runtime: runtime, context: context)
    }

    static func write(_ scratch: ScratchDirectory, name: String, folder: String? = nil, script: String, displayName: String = "Panel",
                      limits: String = #"{"requestSeconds": 2}"#) throws {
        mkdir(scratch.path + "/extensions/" + (folder ?? name), 0o755)
        try scratch.write("extensions/\(folder ?? name)/extension.json", """
            {"name": "\(name)", "exec": ["/bin/sh", "\(fixtures)/\(script)"], "protocol": 1,
             "widgets": [{"kind": "panel", "displayName": "\(displayName)", "options": {"url": {"type": "url", "default": "http://127.0.0.1:9/x"}}}],
             "limits": \(limits)}
            """)
    }

    /// The status bar's word on skipped extensions after the last rescan.
    var notice: String?

    /// A config reload: the rescan, then the widgets bound now go to the router (`configApplied`).
    func reload() -> ExtensionRuntime.Changes {
        let changes = rediscovery.apply(catalog: &catalog, widgets: &widgets, notice: &notice)
        routed.widgets = widgets.widgets
        return changes
    }

    func timeline(_ kind: String, options: WidgetOptions = WidgetOptions()) async throws -> AnyTimeline {
        let widget = try #require(widgets.widget(kind: kind))
        let provider = try widget.makeProvider(options)
        return try await provider.timeline(in: TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5)))
    }

    func close() {
        runtime.stopAll()
        manager.close()
        for _ in 0..<100 where spawner.runningCount > 0 {
            _ = spawner.reapExited()
            usleep(10_000)
        }
        scratch.remove()
    }
}

@Suite("extensions found again at a config reload", .serialized, .onOwnThreads)
struct ExtensionRediscoveryTests {
    @Test("a new extension becomes usable; a changed manifest stops the running process and the next request launches the new one")
    func addedAndChanged() async throws {
        let rig = try ReloadRig([("fake", "answers.sh")])
        defer { rig.close() }
        _ = try await rig.timeline("fake/panel")
        let fake = try #require(rig.runtime.host(named: "fake"))
        let firstPID = try #require(fake.status.pid)
        #expect(rig.reload().isEmpty)  // nothing changed: the process keeps running
        #expect(fake.status.pid == firstPID)

        try ReloadRig.write(rig.scratch, name: "fake", script: "answers.sh", displayName: "Renamed", limits: #"{"requestSeconds": 3}"#)
        try ReloadRig.write(rig.scratch, name: "snappy", script: "snapshots.sh")
        #expect(rig.catalog.manifest(kind: "snappy/panel") == nil)
        let changes = rig.reload()
        #expect(changes == ExtensionRuntime.Changes(added: ["snappy"], changed: ["fake"], removed: []))
        #expect(!fake.status.isRunning)  // stopped: its manifest changed
        #expect(fake.manifest.limits.requestSeconds == 3)
        #expect(rig.catalog.manifest(kind: "fake/panel")?.displayName == "Renamed")
        #expect(rig.widgets.widget(kind: "fake/panel")?.displayName == "Renamed")
        #expect(rig.catalog.validator().previewPanel(kind: "snappy/panel", family: nil, options: []).errors.isEmpty)
        let snappy = try await rig.timeline("snappy/panel")
        #expect((snappy.entries.first as? ExtensionEntry)?.view == .text([ViewNode.Span("from the timeline")]))
        _ = try await rig.timeline("fake/panel")
        #expect(fake.status.launches == 2 && fake.status.pid != firstPID)
        #expect(rig.catalog.manifests.filter { $0.kind == "clock" }.count == 1)  // built-ins kept, once
    }

    @Test("a removed extension keeps its kinds (the config still loads) and its panels say why; put back, it works again")
    func removed() async throws {
        let rig = try ReloadRig([("fake", "answers.sh")])
        defer { rig.close() }
        _ = try await rig.timeline("fake/panel")
        let fake = try #require(rig.runtime.host(named: "fake"))
        unlink(rig.directory + "/fake/extension.json")
        #expect(rig.reload() == ExtensionRuntime.Changes(removed: ["fake"]))
        #expect(!fake.status.isRunning)
        #expect(rig.catalog.manifest(kind: "fake/panel") != nil)
        await #expect(throws: ExtensionError.removed("the extension 'fake' was removed: its extension.json is gone (put it back, save the config)")) {
            _ = try await rig.timeline("fake/panel")
        }
        #expect(rig.reload().isEmpty)
        try ReloadRig.write(rig.scratch, name: "fake", script: "answers.sh", limits: #"{"requestSeconds": 900}"#)
        #expect(rig.reload().isEmpty)  // refused: still not usable, for another reason
        do {
            _ = try await rig.timeline("fake/panel")
            Issue.record("a refused extension answered")
        } catch {
            #expect("\(error)".hasPrefix("the extension 'fake' was refused at the config reload: \(rig.directory)/fake/extension.json: limits.requestSeconds: "), "\(error)")
        }
        try ReloadRig.write(rig.scratch, name: "fake", script: "answers.sh")
        #expect(rig.reload() == ExtensionRuntime.Changes(changed: ["fake"]))
        #expect(try await rig.timeline("fake/panel").entries.count == 2)
    }

    @Test("a manifest refused at a reload is named as the reason even when its folder is not named after the extension")
    func refusedInAnotherFolder() async throws {
        let rig = try ReloadRig([])
        defer { rig.close() }
        try ReloadRig.write(rig.scratch, name: "weather", folder: "wx", script: "answers.sh")
        #expect(rig.reload() == ExtensionRuntime.Changes(added: ["weather"]))
        try ReloadRig.write(rig.scratch, name: "weather", folder: "wx", script: "answers.sh", limits: #"{"requestSeconds": 900}"#)
        #expect(rig.reload() == ExtensionRuntime.Changes(removed: ["weather"]))
        do {
            _ = try await rig.timeline("weather/panel")
            Issue.record("a refused extension answered")
        } catch {
            #expect("\(error)".hasPrefix("the extension 'weather' was refused at the config reload: \(rig.directory)/wx/extension.json: limits.requestSeconds: "), "\(error)")
        }
    }

    @Test("a rescan with nothing changed keeps the extension kinds and logs a manifest problem once, not at every save")
    func unchangedRescan() throws {
        let rig = try ReloadRig([("fake", "answers.sh")])
        defer { rig.close() }
        let lines = Mutex<[String]>([])
        rig.runtime.setLog { _, message in lines.withLock { $0.append(message) } }
        mkdir(rig.directory + "/broken", 0o755)
        try rig.scratch.write("extensions/broken/extension.json", "{")
        #expect(rig.reload().isEmpty)
        #expect(rig.reload().isEmpty)
        #expect(lines.withLock { $0 }.filter { $0.contains("broken/extension.json") }.count == 1, "\(lines.withLock { $0 })")
        #expect(rig.widgets.widget(kind: "fake/panel") != nil && rig.catalog.definitions.contains { $0.manifest.kind == "fake/panel" })
    }

    @Test("a new extension's download events reach it: the session router asks the current extension widgets")
    func newExtensionSessions() async throws {
        let rig = try ReloadRig([])
        defer { rig.close() }
        try ReloadRig.write(rig.scratch, name: "dl", script: "downloads.sh")
        #expect(rig.reload() == ExtensionRuntime.Changes(added: ["dl"]))
        _ = try await rig.timeline("dl/panel", options: ["url": .string("http://127.0.0.1:9/board.json")])
        #expect(await rig.transport.wait { $0.runningIDs.count == 1 })
        let request = try #require(rig.transport.startedRequests.last)
        let id = try #require(rig.transport.runningIDs.first)
        let fd = open(request.destinationPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = write(fd, "NEW", 3)
        close(fd)
        _ = rig.transport.finish(id, with: .downloaded(DownloadedFile(path: request.destinationPath, status: 200, byteCount: 3,
                                                                      validators: Validators(), attempts: 1)))
        #expect(await eventually { rig.manager.pendingEvents.isEmpty })
        #expect(try #require(rig.runtime.host(named: "dl")).status.launches == 1)
    }
}
