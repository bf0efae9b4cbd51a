#if canImport(Glibc)
import Glibc
#endif
@testable import BackgroundSessions
import Dispatch
import FoundationEssentials
@testable import Extensions
import Testing
import WidgetCore
import Widgets
import WidgetTestSupport

/// An extension's `download` through the host's session manager (a fake transport), and the
/// `sessionEvents` delivery that acknowledges the journal only once the extension answers.
final class SessionRig: Sendable {
    let fake: FakeExtension
    let transport = FakeTransport()
    let manager: BackgroundSessionManager
    let widget: TerminalWidget

    /// - Parameters:
    ///   - headers: the `headers` object the extension sends with its download.
    ///   - script: the fixture (`downloads.sh` asks for the download its panel names).
    init(limits: String, silentFirst: Bool = false, headers: String? = nil, debug: Bool = false,
         script: String = "downloads.sh") throws {
        fake = try FakeExtension(script: script, limits: limits, debug: debug)
        if silentFirst { try fake.scratch.write("fake/silent-on-launch-1", "") }
        if let headers { try fake.scratch.write("fake/headers.json", headers) }
        manager = try BackgroundSessionManager.open(stateDirectory: fake.stateDirectory, transport: transport,
                                                    deliveryQueue: DispatchQueue(label: "test.delivery"))
        fake.host.bind(spawner: fake.spawner, environment: ["PATH": "/usr/bin:/bin"], stateDirectory: fake.stateDirectory,
                       sessions: manager)
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host)
        self.widget = widget
        manager.eventRouter = BackgroundSessionManager.router(for: { [widget] })
    }

    func close() {
        manager.close()
        fake.close()
    }

    func timeline(url: String?, userInitiated: Bool = false) async throws -> AnyTimeline {
        var options = WidgetOptions()
        if let url { options = ["url": .string(url)] }
        let provider = try widget.makeProvider(options)
        return try await provider.timeline(in: TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5),
                                                                       isUserInitiated: userInitiated))
    }

    /// Finishes the one running transfer with `body`.
    func finishDownload(_ body: String) throws {
        let request = try #require(transport.startedRequests.last)
        let id = try #require(transport.runningIDs.first)
        let bytes = Array(body.utf8)
        let fd = open(request.destinationPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, bytes.count) }
        Glibc.close(fd)
        transport.finish(id, with: .downloaded(DownloadedFile(path: request.destinationPath, status: 200, byteCount: bytes.count,
                                                              validators: Validators(), attempts: 1)))
    }
}

@Suite("Extension background sessions", .serialized, .onOwnThreads(.awaitingExtensions))
struct ExtensionSessionTests {
    @Test("download runs in the host's session manager; sessionEvents brings the body; the journal is acknowledged after the answer")
    func downloadDelivered() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 2}"#)
        defer { rig.close() }
        _ = try await rig.timeline(url: "http://127.0.0.1:9/board.json")
        #expect(await rig.transport.wait { $0.startedRequests.map(\.url) == ["http://127.0.0.1:9/board.json"] })
        #expect(await rig.fake.logged { $0.hasPrefix("info: fake stderr: download answered: ") && $0.contains(#""result":{"task":"#) })
        try rig.finishDownload("BOARD 42")
        #expect(await rig.fake.logged("info: fake stderr: body: BOARD 42"))
        #expect(await eventually { rig.manager.pendingEvents.isEmpty })
        let events = rig.fake.logLines.first { $0.contains("events (launch 1)") } ?? ""
        #expect(events.contains(#""description":"the board","url":"http://127.0.0.1:9/board.json","status":"downloaded","file":""#), "\(events)")
        #expect(rig.fake.host.status.launches == 1)
    }

    @Test("the budget follows the request: the reload an extension sends with the events of a download a user's reload started is the answer; the system's stays the system's",
          arguments: [true, false])
    func causeFollowsTheDownload(userInitiated: Bool) async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 2}"#)
        defer { rig.close() }
        try rig.fake.scratch.write("fake/reload-on-events", "")
        let center = WidgetCenter()
        rig.fake.runtime.setCenter(center)
        _ = try await rig.timeline(url: "http://127.0.0.1:9/board.json", userInitiated: userInitiated)
        #expect(await rig.transport.wait { $0.runningIDs.count == 1 })
        try rig.finishDownload("BOARD 5")
        #expect(await rig.fake.logged("info: fake stderr: body: BOARD 5"))
        #expect(await eventually { rig.manager.pendingEvents.isEmpty })
        #expect(center.takeRequests() == [userInitiated ? .caused("fake/panel", .answer) : .kind("fake/panel")])
    }

    @Test("the extension is gone while its download is in flight: the events launch it again and reach it")
    func launchedForEvents() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 2}"#)
        defer { rig.close() }
        _ = try await rig.timeline(url: "http://127.0.0.1:9/board.json")
        #expect(await rig.transport.wait { $0.runningIDs.count == 1 })
        let pid = try #require(rig.fake.host.status.pid)
        kill(pid, SIGKILL)
        // The crash is logged as the host detaches the process.
        #expect(await rig.fake.logged("error: fake: exited; relaunch in 1 s at the earliest"))
        #expect(!rig.fake.host.status.isRunning)
        try rig.finishDownload("BOARD 9")
        #expect(await rig.fake.logged("info: fake stderr: body: BOARD 9"))
        #expect(await eventually { rig.manager.pendingEvents.isEmpty })
        #expect(rig.fake.host.status.launches == 2)
    }

    @Test("sessionEvents never answered: the events stay in the journal and are delivered again on the next launch")
    func redeliveredOnNextLaunch() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 1, "idleExitSeconds": 2}"#, silentFirst: true)
        defer { rig.close() }
        _ = try await rig.timeline(url: "http://127.0.0.1:9/board.json")
        #expect(await rig.transport.wait { $0.runningIDs.count == 1 })
        try rig.finishDownload("BOARD 7")
        #expect(await rig.fake.logged { $0.contains("session board events not answered (timed out after 1 s)") })
        #expect(rig.manager.pendingEvents.count == 1)
        // It goes idle and exits; its next launch (a panel's reload) gets the events again.
        #expect(await rig.fake.logged("info: fake: idle for 2 s; shutting down"))
        #expect(!rig.fake.host.status.isRunning)
        _ = try await rig.timeline(url: nil)
        #expect(await rig.fake.logged("info: fake stderr: body: BOARD 7"))
        #expect(await eventually { rig.manager.pendingEvents.isEmpty })
        #expect(rig.fake.host.status.launches == 2)
    }

    @Test("download is refused with a JSON-RPC error when the host has no sessions, and the extension keeps running")
    func noSessions() async throws {
        let fake = try FakeExtension(script: "downloads.sh")
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host)
        let provider = try widget.makeProvider(["url": .string("http://127.0.0.1:9/x")])
        _ = try await provider.timeline(in: TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5)))
        #expect(await fake.logged { $0.contains("background sessions are off in this mode") })
        #expect(fake.host.status.isRunning && fake.host.status.protocolErrors == 0)
    }
}
