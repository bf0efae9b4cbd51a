#if canImport(Glibc)
import Glibc
#endif
@testable import BackgroundSessions
import FoundationEssentials
import HostProcesses
import TerminalUI
import Testing
@testable import WidgetHost
import WidgetTestSupport

/// `widgethost snapshot` with an extension that downloads through the host's session: the
/// wait covers download → sessionEvents → reloadTimelines → the new timeline.
@Suite("snapshot with an extension's download", .serialized, .onOwnThreads(.processes))
@MainActor
struct SnapshotExtensionTests {
    static let fixture: String = {
        let here = #filePath
        let tests = here[..<here.lastIndex(of: "/")!]
        return String(tests[..<tests.lastIndex(of: "/")!]) + "/ExtensionsTests/Fixtures/snapshot-downloads.sh"
    }()

    static let datesNow: String = fixture.replacing("snapshot-downloads.sh", with: "dates-now.sh")

    @Test("without --at, an entry the extension dates 'now' when it answers is shown, not the placeholder (issue 22, item 11)")
    func entryDatedNow() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for folder in ["/ext", "/ext/clocky", "/tmp"] { #expect(mkdir(scratch.path + folder, 0o700) == 0) }
        try scratch.write("ext/clocky/extension.json", """
            {"name": "clocky", "exec": ["/bin/sh", "\(Self.datesNow)"], "protocol": 1,
             "widgets": [{"kind": "now", "displayName": "Now",
                          "placeholder": {"type": "text", "spans": [{"text": "placeholder shown"}]}}],
             "limits": {"requestSeconds": 5}}
            """)
        let config = try scratch.write("config.json", #"{"panels": [{"kind": "clocky/now", "family": "medium"}]}"#)
        let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"],
                                          homeDirectory: "/nonexistent")
        let setup = ExtensionSetup.discover(catalog: .builtin(), explicitDirectory: scratch.path + "/ext", environment: environment)
        #expect(setup.problems.isEmpty)
        defer { setup.runtime.stopAll() }
        let io = HostIO(environment: environment, files: FileRoots(state: nil, temporary: scratch.path + "/tmp"),
                        clock: SystemTransportClock(), processes: ProcessSpawner(), randomSeed: 7, makeTransport: { FakeTransport() })
        let output = await SnapshotCommand.run(SnapshotOptions(configPath: config, size: TerminalSize(columns: 60, rows: 10),
                                                               waitSeconds: 10),
                                               environment: environment, catalog: setup.catalog, io: io, extensions: setup.runtime)
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("entry dated now"), "\(output.standardOutput)")
        #expect(output.standardError == "")
    }

    @Test("--wait covers the extension's download, its sessionEvents and the timeline reloaded after; --state-dir lends it a copy of the dashboard's extension data")
    func downloadThenReload() async throws {
        let scratch = try ScratchDirectory()
        defer { scratch.remove() }
        for folder in ["/ext", "/ext/watch", "/state", "/state/extensions", "/state/extensions/watch", "/tmp"] {
            #expect(mkdir(scratch.path + folder, 0o700) == 0)
        }
        try scratch.write("ext/watch/extension.json", """
            {"name": "watch", "exec": ["/bin/sh", "\(Self.fixture)"], "protocol": 1,
             "widgets": [{"kind": "page", "displayName": "Page", "usesNetwork": true,
                          "options": {"url": {"type": "url", "default": "http://127.0.0.1:9/page"}}}],
             "limits": {"requestSeconds": 5}}
            """)
        try scratch.write("state/extensions/watch/seed", "seeded")
        let config = try scratch.write("config.json", #"{"panels": [{"kind": "watch/page", "family": "medium"}]}"#)
        let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8", "PATH": "/usr/bin:/bin"],
                                          homeDirectory: "/nonexistent")
        let setup = ExtensionSetup.discover(catalog: .builtin(), explicitDirectory: scratch.path + "/ext", environment: environment)
        #expect(setup.problems.isEmpty)
        defer { setup.runtime.stopAll() }
        let transport = FakeTransport()
        let io = HostIO(environment: environment, files: FileRoots(state: nil, temporary: scratch.path + "/tmp"),
                        clock: SystemTransportClock(), processes: ProcessSpawner(), randomSeed: 7, makeTransport: { transport })
        // The "network": once the extension asks, the body arrives a little later.
        let server = Task.detached {
            guard await eventually(within: 10, { !transport.runningIDs.isEmpty }),
                  let request = transport.startedRequests.last, let id = transport.runningIDs.first else { return false }
            try? await Task.sleep(for: .milliseconds(300))
            let body = Array("PAGE-42".utf8)
            let fd = open(request.destinationPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = body.withUnsafeBytes { write(fd, $0.baseAddress!, body.count) }
            close(fd)
            return transport.finish(id, with: .downloaded(DownloadedFile(path: request.destinationPath, status: 200, byteCount: body.count,
                                                                        validators: Validators(), attempts: 1)))
        }
        let output = await SnapshotCommand.run(SnapshotOptions(configPath: config, stateDirectory: scratch.path + "/state",
                                                               size: TerminalSize(columns: 60, rows: 10), waitSeconds: 15),
                                               environment: environment, catalog: setup.catalog, io: io, extensions: setup.runtime)
        #expect(await server.value, "the extension's download reached the transport")
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("body PAGE-42 seeded"), "\(output.standardOutput)")
        #expect(output.standardError == "")
        #expect(access(scratch.path + "/state/extensions/watch/body", F_OK) != 0, "the dashboard's extension data is only read")
    }
}
