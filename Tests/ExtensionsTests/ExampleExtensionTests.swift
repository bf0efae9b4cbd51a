#if canImport(Glibc)
import Glibc
#endif
@testable import BackgroundSessions
import Dispatch
import FoundationEssentials
import HostProcesses
@testable import Extensions
import Testing
import WidgetCore
import Widgets
import WidgetTestSupport

/// The repository's `Examples/extensions`, found from this file.
private let examples: String = {
    var path = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    path.removeLast(3)  // Tests/ExtensionsTests/ExampleExtensionTests.swift
    return path.joined(separator: "/") + "/Examples/extensions"
}()

/// One of `Examples/extensions` run as the host runs it (its own manifest, folder and
/// interpreter), its downloads through a session manager on a fake transport.
private final class ExampleRig: Sendable {
    let scratch: ScratchDirectory
    let runtime: ExtensionRuntime
    let spawner = ProcessSpawner()
    let transport = FakeTransport()
    let manager: BackgroundSessionManager
    let widget: TerminalWidget
    let dataDirectory: String

    init(_ name: String, kind: String) throws {
        scratch = try ScratchDirectory()
        let state = scratch.path + "/state"
        mkdir(state, 0o700)
        let folder = examples + "/" + name
        let manifest = try ExtensionManifestParser.parse(try FileContents.bytes(at: folder + "/extension.json"),
                                                         file: folder + "/extension.json", directory: folder)
        runtime = ExtensionRuntime(manifests: [manifest])
        manager = try BackgroundSessionManager.open(stateDirectory: state, transport: transport,
                                                    deliveryQueue: DispatchQueue(label: "test.delivery"))
        runtime.hosts[0].bind(spawner: spawner, environment: ["PATH": "/usr/local/bin:/usr/bin:/bin"], stateDirectory: state,
                              sessions: manager)
        let widget = ExtensionWidgets.configuration(try #require(manifest.widgets.first { $0.kind == kind }), host: runtime.hosts[0])
        self.widget = widget
        manager.eventRouter = BackgroundSessionManager.router(for: { [widget] })
        dataDirectory = state + "/extensions/" + name
    }

    func close() {
        manager.close()
        runtime.stopAll()
        _ = spawner.reapExited()
        scratch.remove()
    }

    func timeline(_ options: WidgetOptions) async throws -> AnyTimeline {
        let provider = try widget.makeProvider(options)
        return try await provider.timeline(in: TimelineProviderContext(family: .medium, size: CellSize(columns: 40, rows: 10)))
    }

    /// Ends the one running transfer with `result` and waits until the extension answered its events.
    func finish(_ result: (String) -> TransferResult) async throws {
        let request = try #require(transport.startedRequests.last)
        let id = try #require(transport.runningIDs.first)
        #expect(transport.finish(id, with: result(request.destinationPath)))
        #expect(await eventually { manager.pendingEvents.isEmpty }, "the extension answered its events")
    }

    /// Writes `body` where the transfer's file goes and says it was downloaded.
    static func downloaded(_ body: String) -> (String) -> TransferResult {
        { path in
            let bytes = Array(body.utf8)
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress!, bytes.count) }
            Glibc.close(fd)
            return .downloaded(DownloadedFile(path: path, status: 200, byteCount: bytes.count, validators: Validators(), attempts: 1))
        }
    }
}

/// When the host will next ask for a timeline with this policy.
private func nextRequest(_ timeline: AnyTimeline) -> Date? {
    switch timeline.policy {
    case .atEnd: timeline.entries.last?.date
    case .after(let date): date
    case .never: nil
    }
}

/// Every example extension, run against the host: what people copy must behave.
@Suite("The example extensions, run by the host", .serialized, .onOwnThreads)
struct ExampleExtensionTests {
    @Test("hourglass with one entry a timeline is asked again when its minute ends, not at once (every 5 s)",
          arguments: [1, 10])
    func hourglassAsksAtTheMinute(entries: Int) async throws {
        let rig = try ExampleRig("hourglass", kind: "hour")
        defer { rig.close() }
        let asked = Date()
        let timeline = try await rig.timeline(["entries": .integer(entries), "label": .string("the test")])
        #expect(timeline.entries.count == entries)
        let next = try #require(nextRequest(timeline))
        let first = try #require(timeline.entries.first?.date)
        #expect(next == first.addingTimeInterval(60 * Double(entries)), "asked again at \(next): when its last entry's minute ends")
        // Not due when it answered (after `asked`): a check against the time now would fail
        // whenever the minute ends between the answer and the check (a clean-clone CI run).
        #expect(next > asked, "the next request was due already when it was asked for")
    }

    @Test("rangers after a 304 keeps its board as fresh: no download again until refreshSeconds have passed, its fetch time is now")
    func rangersNotModified() async throws {
        let rig = try ExampleRig("rangers", kind: "team")
        defer { rig.close() }
        let url = "http://127.0.0.1:9/leaderboard"
        _ = try await rig.timeline(["url": .string(url)])
        #expect(await rig.transport.wait { $0.startedRequests.count == 1 })
        try await rig.finish(ExampleRig.downloaded(#"{"heroes": [{"name": "Octo", "level": 3, "exp": 120, "health": 1}]}"#))
        // An hour later (its state says so): due again; the server answers 304.
        let stale = Date().timeIntervalSince1970 - 3600
        _ = try rig.scratch.write("state/extensions/rangers/state.json", #"{"asked": 0, "url": "\#(url)", "fetched": \#(stale)}"#)
        _ = try await rig.timeline(["url": .string(url)])
        #expect(await rig.transport.wait { $0.startedRequests.count == 2 })
        try await rig.finish { _ in .notModified(Validators()) }
        // What its reloadTimelines brings: a timeline that downloads nothing and shows the board fresh.
        // A download asked for in a timeline has started before that timeline's answer is in:
        // the reader handles the extension's lines in order, and the manager starts it at once.
        for _ in 0..<3 { _ = try await rig.timeline(["url": .string(url)]) }
        #expect(rig.transport.startedRequests.count == 2, "downloads: \(rig.transport.startedRequests.map(\.url))")
        let state = (try? FileContents.text(at: rig.dataDirectory + "/state.json")) ?? ""
        let fetched = state.split(separator: #""fetched": "#).dropFirst().first.flatMap { Double($0.prefix { $0.isNumber || $0 == "." }) } ?? 0
        #expect(fetched > Date().timeIntervalSince1970 - 60, "the board counts as fetched now: \(state)")
    }

    @Test("sitewatch after a 304 counts the site up and does not check again before its interval")
    func sitewatchNotModified() async throws {
        let rig = try ExampleRig("sitewatch", kind: "status")
        defer { rig.close() }
        let options: WidgetOptions = ["url": .string("http://127.0.0.1:9/healthz"), "every": .integer(300)]
        _ = try await rig.timeline(options)
        #expect(await rig.transport.wait { $0.startedRequests.count == 1 })
        try await rig.finish { _ in .notModified(Validators()) }
        for _ in 0..<3 { _ = try await rig.timeline(options) }  // a check asked for has started by each answer
        #expect(rig.transport.startedRequests.count == 1, "checks: \(rig.transport.startedRequests.count)")
    }

    @Test("sitewatch's url picker (a dynamic option): the known URLs, then the one checked with its state and latency; the query filters")
    func sitewatchOptions() async throws {
        let rig = try ExampleRig("sitewatch", kind: "status")
        defer { rig.close() }
        let pick = try #require(rig.widget.optionsProvider)
        let known = try await pick(DynamicOptionsQuery(option: "url", query: ""))
        #expect(known.map(\.value) == ["http://127.0.0.1:8787/healthz", "http://127.0.0.1:8787/leaderboard"])
        #expect(known.first?.subtitle == "the bundled leaderboard server's health")
        let options: WidgetOptions = ["url": .string("http://127.0.0.1:9/healthz"), "every": .integer(300)]
        _ = try await rig.timeline(options)
        #expect(await rig.transport.wait { $0.startedRequests.count == 1 })
        try await rig.finish { _ in .notModified(Validators()) }
        _ = try await rig.timeline(options)
        let checked = try await pick(DynamicOptionsQuery(option: "url", query: "127.0.0.1:9/"))
        #expect(checked.count == 1 && checked.first?.value == "http://127.0.0.1:9/healthz", "\(checked)")
        #expect(checked.first?.subtitle?.hasPrefix("up, ") == true, "\(checked)")
        await #expect(throws: ExtensionError.self) { try await pick(DynamicOptionsQuery(option: "every", query: "")) }
    }
}
