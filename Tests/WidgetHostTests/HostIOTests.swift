#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import FoundationEssentials
import HostProcesses
import TerminalUI
import Testing
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A `HostIO` whose transport is `transport` and whose temporary files go to `temporary`.
private func io(transport: FakeTransport, temporary: String, environment: HostEnvironment) -> HostIO {
    HostIO(environment: environment, files: FileRoots(state: nil, temporary: temporary), clock: SystemTransportClock(),
           processes: ProcessSpawner(), randomSeed: 7, makeTransport: { transport })
}

@Suite("Host I/O is passed in", .serialized)
@MainActor
struct HostIOTests {
    @Test("snapshot fetches through HostIO's transport, in a directory under HostIO's temporary root")
    func snapshotUsesHostIO() async throws {
        let scratch = TemporaryDirectory()
        defer { scratch.remove() }
        let config = scratch.write("config.json", #"""
            {"panels": [{"kind": "leaderboard", "family": "large",
                         "options": {"url": "http://127.0.0.1:1/leaderboard"}}]}
            """#)
        let temporary = scratch.path + "/tmp"
        #expect(mkdir(temporary, 0o700) == 0)
        let transport = FakeTransport()
        let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8"], homeDirectory: "/nonexistent")
        let output = await SnapshotCommand.run(SnapshotOptions(configPath: config, size: TerminalSize(columns: 80, rows: 24),
                                                               waitSeconds: 1),
                                               environment: environment, catalog: .builtin(),
                                               io: io(transport: transport, temporary: temporary, environment: environment))
        #expect(output.exitCode == 0)
        let request = try #require(transport.startedRequests.first, "the leaderboard's fetch went to HostIO's transport")
        #expect(request.url == "http://127.0.0.1:1/leaderboard")
        #expect(request.directory.hasPrefix(temporary + "/widgethost-headless-"))
        #expect(FilePaths.list(temporary).isEmpty, "the headless state directory is removed at the end")
    }

    @Test("widgets receive one environment, the process's with the host's own variables over it, and HostIO's roots and spawner")
    func widgetContext() {
        let files = FileRoots(proc: "/fake/proc", zoneinfo: "/fake/zoneinfo", state: nil, temporary: "/fake/tmp")
        var io = HostIO(environment: HostEnvironment(variables: ["TZ": "UTC", "HOME": "/home/u"]), files: files,
                        clock: SystemTransportClock(), processes: ProcessSpawner(), randomSeed: 7, makeTransport: { FakeTransport() })
        io.widgetEnvironment = ["PATH": "/usr/bin:/bin", "TZ": "Asia/Tokyo", "EDITOR": "vi"]
        let context = io.widgetContext(variables: io.environment.variables)
        #expect(context.environment == ["PATH": "/usr/bin:/bin", "TZ": "UTC", "HOME": "/home/u", "EDITOR": "vi"])
        #expect(context.proc == "/fake/proc" && context.zoneinfo == "/fake/zoneinfo" && context.temporary == "/fake/tmp")
        #expect(context.processes === io.processes, "the spawner the dashboard's loop reaps for")
        #expect(context.sessions == nil && context.push == nil && context.transport == nil, "the runner adds these")
    }

    @Test("the live HostIO draws a seed at start, reads the system's roots and clocks")
    func live() {
        let first = HostIO.live()
        let second = HostIO.live()
        #expect(first.randomSeed != second.randomSeed, "seeded from /dev/urandom")
        #expect(first.files.proc == "/proc" && first.files.zoneinfo == "/usr/share/zoneinfo")
        let wall = Date(timeIntervalSince1970: first.clock.wallNow)
        #expect(abs(wall.timeIntervalSinceNow) < 5)
        var variables = HostEnvironment(variables: ["TMPDIR": "/var/tmp", "XDG_STATE_HOME": "/state"], homeDirectory: "/home/u")
        #expect(FileRoots.live(environment: variables) == FileRoots(state: "/state/widgethost", temporary: "/var/tmp"))
        variables.variables = ["TMPDIR": "relative"]
        #expect(FileRoots.live(environment: variables) == FileRoots(state: "/home/u/.local/state/widgethost", temporary: "/tmp"))
    }
}
