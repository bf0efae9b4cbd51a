#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import FoundationEssentials
import TerminalUI
import Testing
import Widgets
@testable import WidgetHost

@Suite("snapshot --state-dir and headless temporary directories", .serialized)
@MainActor
struct SnapshotStateTests {
    @Test("--state-dir shows the dashboard's cached board, and the directory is only read")
    func cachedBoard() async throws {
        let state = TemporaryDirectory()
        defer { state.remove() }
        let fetched = Date(timeIntervalSince1970: 1_796_000_000)
        let board = LeaderboardBoard(updated: fetched, heroes: [
            LeaderboardHero(name: "Octo", avatar: "🐙", heroType: "Octopus", level: 43, exp: 86_463, health: 0.83,
                            healthRecoveryRatePerHour: 0.29)])
        let container = try WidgetContainer(kind: LeaderboardStore.kind, stateDirectory: state.path)
        #expect(LeaderboardStore(container: container).save(LeaderboardState(board: board, fetchedAt: fetched), session: "cached"))
        // Port 1 on loopback refuses at once: only the cache can fill the panel.
        let config = state.write("config.json", #"""
            {"panels": [{"kind": "leaderboard", "family": "large", "title": "Cached",
                         "options": {"url": "http://127.0.0.1:1/leaderboard", "session": "cached"}}]}
            """#)
        let before = try listing(state.path)
        let output = await SnapshotCommand.run(SnapshotOptions(configPath: config, stateDirectory: state.path,
                                                               size: TerminalSize(columns: 80, rows: 24),
                                                               at: .absolute(fetched.addingTimeInterval(120)), waitSeconds: 30),
                                               environment: HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8"],
                                                                            homeDirectory: "/nonexistent"), catalog: .builtin())
        #expect(output.exitCode == 0)
        #expect(output.standardOutput.contains("Octo"), "\(output.standardOutput)")
        #expect(try listing(state.path) == before)

        let without = await SnapshotCommand.run(SnapshotOptions(configPath: config, size: TerminalSize(columns: 80, rows: 24),
                                                                at: .absolute(fetched.addingTimeInterval(120)), waitSeconds: 30),
                                                environment: HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8"],
                                                                             homeDirectory: "/nonexistent"), catalog: .builtin())
        #expect(!without.standardOutput.contains("Octo"))
    }

    @Test("--state-dir naming no directory exits 2")
    func missingStateDirectory() async {
        let output = await SnapshotCommand.run(SnapshotOptions(stateDirectory: "/nonexistent/state"),
                                               environment: HostEnvironment(variables: [:], homeDirectory: "/nonexistent"), catalog: .builtin())
        #expect(output == CommandOutput(exitCode: 2, standardError: "widgethost snapshot: --state-dir /nonexistent/state: no such directory\n"))
    }

    @Test("containers are copied as regular files only: no symlink followed, nothing oversized")
    func copyIsCareful() throws {
        let source = TemporaryDirectory()
        let target = TemporaryDirectory()
        let secret = TemporaryDirectory()
        defer { source.remove(); target.remove(); secret.remove() }
        mkdir(source.path + "/kind", 0o700)
        source.write("kind/board.json", "{}")
        secret.write("key", "secret")
        symlink(secret.path + "/key", source.path + "/kind/link")
        symlink(secret.path, source.path + "/linked-kind")
        source.write("kind/huge", [UInt8](repeating: 0, count: ContainerCopy.fileLimit + 1))
        ContainerCopy.copy(from: source.path, to: target.path + "/containers")
        #expect(try listing(target.path) == ["containers", "containers/kind", "containers/kind/board.json"])
        #expect(try String(contentsOfFile: target.path + "/containers/kind/board.json", encoding: .utf8) == "{}")
    }

    @Test("an abandoned headless directory of a process that is gone is swept; live ones, others' and symlinks stay")
    func sweep() throws {
        let parent = TemporaryDirectory()
        let elsewhere = TemporaryDirectory()
        defer { parent.remove(); elsewhere.remove() }
        let dead = parent.path + "/\(HeadlessSessions.prefix)99999999-abcdef"
        let live = parent.path + "/\(HeadlessSessions.prefix)\(getpid())-abcdef"
        let unrelated = parent.path + "/\(HeadlessSessions.prefix)notapid"
        for path in [dead, live, unrelated] { mkdir(path, 0o700) }
        _ = FileManager.default.createFile(atPath: dead + "/sessions.sqlite", contents: Data("x".utf8))
        elsewhere.write("keep", "keep")
        symlink(elsewhere.path, parent.path + "/\(HeadlessSessions.prefix)99999998-link")
        HeadlessSessions.sweepAbandoned(in: parent.path)
        #expect(try listing(parent.path) == [
            "\(HeadlessSessions.prefix)99999998-link", "\(HeadlessSessions.prefix)\(getpid())-abcdef",
            "\(HeadlessSessions.prefix)notapid"].sorted())
        #expect(FileManager.default.fileExists(atPath: elsewhere.path + "/keep"))
    }
}

/// Every path under `root`, relative and sorted (symlinks listed, not followed).
private func listing(_ root: String) throws -> [String] {
    var out: [String] = []
    func walk(_ relative: String) {
        for name in FilePaths.list(relative.isEmpty ? root : root + "/" + relative) {
            let path = relative.isEmpty ? name : relative + "/" + name
            out.append(path)
            var info = stat()
            if lstat(root + "/" + path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { walk(path) }
        }
    }
    walk("")
    return out.sorted()
}
