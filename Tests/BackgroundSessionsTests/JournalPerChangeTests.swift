import BackgroundSessions
import FoundationEssentials
import Glibc
import LeaderboardServer
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

/// Every regular file under `path` with its size and modification time: what a fetch wrote.
private func fileStamps(_ path: String) -> [String: String] {
    var out: [String: String] = [:]
    for name in filesUnder(path) {
        var info = stat()
        guard stat(path + "/" + name, &info) == 0 else { continue }
        out[name] = "\(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
    }
    return out
}

/// A server whose `/board` body is `version`'s (a strong ETag from the bytes: a 304 while it
/// stays the same).
private final class Board: Sendable {
    let version = Mutex(1)
    var body: [UInt8] { Array(#"{"heroes":[{"name":"Octo","score":\#(version.withLock { $0 })}]}"#.utf8) }
}

/// The journal writes a manager made (`Hooks.beforeJournalWrite`), from any thread.
private final class Writes: Sendable {
    private let list = Mutex<[BackgroundSessionManager.JournalWrite]>([])
    var all: [BackgroundSessionManager.JournalWrite] { list.withLock { $0 } }
    func append(_ write: BackgroundSessionManager.JournalWrite) { list.withLock { $0.append(write) } }
    func clear() { list.withLock { $0 = [] } }
}

/// The journal keeps a record per change, not per attempt (issue 30, item 2): a re-fetch the
/// server answers 304 writes nothing to the state directory.
@Suite("Journal records per change", .serialized)
struct JournalPerChangeTests {
    private func open(_ state: String, writes: Writes) throws -> BackgroundSessionManager {
        var hooks = BackgroundSessionManager.Hooks()
        hooks.beforeJournalWrite = { writes.append($0) }
        return try BackgroundSessionManager.open(stateDirectory: state, transport: loopbackTransport(), hooks: hooks)
    }

    /// One fetch of `url` in session "board", delivered and acknowledged; the delivery's lines.
    private func fetch(_ manager: BackgroundSessionManager, _ url: String, delegate: RecordingDelegate) async -> [String] {
        let before = delegate.lines.count
        let task = manager.session(identifier: "board").downloadTask(with: URL(string: url)!)
        _ = await delegate.log.wait(within: 10) { $0.count > before && $0.last == "finished board" }
        delegate.callCompletion()
        _ = await eventually { manager.isIdle }
        #expect(task.state == .completed)
        return Array(delegate.lines.dropFirst(before))
    }

    @Test("a re-fetch answered 304 makes no journal write and changes no file of the state directory (the WAL included)")
    func notModifiedWritesNothing() async throws {
        let board = Board()
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(board.body) } }
        defer { server.stop() }
        let state = scratchStatePath()
        defer { removeTree(state) }
        let writes = Writes()
        let manager = try open(state, writes: writes)
        defer { manager.close() }
        let delegate = RecordingDelegate()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { _ in true }
        let first = await fetch(manager, base + "/board", delegate: delegate)
        #expect(first.last == "finished board" && first.first?.hasPrefix("download ") == true, "\(first)")
        #expect(writes.all.contains(.insertTask), "the first fetch (no validators yet) is journalled before it starts")
        for _ in 0..<3 {
            writes.clear()
            let files = fileStamps(state)
            let again = await fetch(manager, base + "/board", delegate: delegate)
            #expect(again.first?.hasSuffix("not modified") == true, "\(again)")
            #expect(writes.all == [], "journal writes for a 304")
            #expect(fileStamps(state) == files, "the state directory after a 304")
        }
        #expect(manager.pendingEvents.isEmpty && manager.suspendedTasks.isEmpty)
    }

    @Test("a re-fetch that brings a change is journalled with its task in one write, delivered again after a restart, and its identifier is never reused")
    func changeIsJournalled() async throws {
        let board = Board()
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(board.body) } }
        defer { server.stop() }
        let state = scratchStatePath()
        defer { removeTree(state) }
        let writes = Writes()
        var ids: [Int] = []
        do {
            let manager = try open(state, writes: writes)
            defer { manager.close() }
            let delegate = RecordingDelegate()
            manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { _ in true }
            _ = await fetch(manager, base + "/board", delegate: delegate)
            _ = await fetch(manager, base + "/board", delegate: delegate)  // a 304
            board.version.withLock { $0 = 2 }
            writes.clear()
            let task = manager.session(identifier: "board").downloadTask(with: URL(string: base + "/board")!)
            ids.append(task.taskIdentifier)
            #expect(await delegate.log.wait(within: 10) { $0.last == "finished board" && $0.count == 8 })
            #expect(writes.all.first == .recordResult, "the change's first write is its result: \(writes.all)")
            #expect(!writes.all.contains(.insertTask))
            // Not acknowledged: the next host has it.
        }
        let manager = try open(state, writes: writes)
        defer { manager.close() }
        #expect(manager.pendingEvents.map(\.taskIdentifier) == ids)
        if case .downloaded(_, let status, let count, _, _)? = manager.pendingEvents.first?.outcome {
            #expect(status == 200 && count == board.body.count)
        } else {
            Issue.record("no downloaded event: \(manager.pendingEvents)")
        }
        let delegate = RecordingDelegate()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { _ in true }
        manager.routePendingEvents()
        #expect(await delegate.lines(count: 3))
        #expect(delegate.files.withLock { $0.first?.bytes } == board.body)
        delegate.callCompletion()
        #expect(await eventually { manager.isIdle })
        let next = manager.session(identifier: "board").downloadTask(with: URL(string: base + "/board")!)
        #expect(next.taskIdentifier > ids[0], "identifiers are never reused")
        #expect(await delegate.lines(count: 6))
        delegate.callCompletion()
        #expect(await eventually { manager.isIdle })
    }

    @Test("the body a killed host left for a task it never journalled (above every journalled identifier) is removed at open; a journalled one's is not")
    func unjournalledBodyRemoved() async throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        let writes = Writes()
        let first = try open(state, writes: writes)
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(Board().body) } }
        defer { server.stop() }
        let task = first.session(identifier: "board").downloadTask(with: URL(string: base + "/board")!)
        #expect(await eventually { first.pendingEvents.count == 1 })
        first.close()  // not delivered: its body is kept
        let directory = state + "/sessions/board"
        let stray = directory + "/task-\(task.taskIdentifier + 5)"
        let fd = Glibc.open(stray, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        Glibc.close(fd)
        let manager = try open(state, writes: writes)
        defer { manager.close() }
        #expect(filesUnder(directory) == ["task-\(task.taskIdentifier)"])
    }
}
