@testable import BackgroundSessions
import FoundationEssentials
import Glibc
import Testing
import WidgetCore
import WidgetTestSupport

/// A router whose handler attaches `delegate` and completes at once.
private func acknowledgingRouter(_ manager: BackgroundSessionManager, _ delegate: RecordingDelegate) -> BackgroundSessionManager.EventRouter {
    { identifier in
        BackgroundSessionEventsHandler(matcher: .identifier(identifier)) { id, completion in
            _ = manager.session(identifier: id, delegate: delegate)
            completion()
        }
    }
}

@Suite("State directory: only our files, never through a link, private", .serialized)
struct StateDirectoryTests {
    @Test("the sweep at start removes only files of ours the journal knows, or bodies of tasks above every id it gave (a re-fetch a killed host ran in memory); foreign files and link targets stay")
    func sweepKeepsForeignFiles() async throws {
        let outside = makeTemporaryDirectory(prefix: "bgs-outside")
        defer { removeTree(outside) }
        for name in ["task-1", "task-2", "notes.txt", "delivered-task-1"] { writeFile(outside + "/" + name, [1]) }
        // Task 1 ("s") in flight; its body was renamed into place, never journalled: an orphan.
        let state = try makeJournal { manager, _ in
            _ = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        }
        defer { removeTree(state) }
        let dir = state + "/sessions/s"
        for name in ["task-1", ".task-1.AbC123", "delivered-task-1", "task-999", ".task-998.XyZ789", "delivered-task-997", "notes.txt",
                     "task-1.bak"] { writeFile(dir + "/" + name, [2]) }
        mkdir(state + "/sessions/x", 0o700)
        writeFile(state + "/sessions/x/task-1", [3])         // task 1 is not in session "x"
        writeFile(state + "/sessions/x/notes.txt", [3])
        symlink(outside, state + "/sessions/link")              // a link to a directory elsewhere
        symlink(outside + "/task-2", dir + "/task-2")           // a link named like ours
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport())
        manager.close()
        // task-999 and its temporary file: above task 1, never journalled (issue 30: a re-fetch
        // runs in memory until its result); a delivery link only follows a journalled result.
        #expect(filesUnder(dir) == ["delivered-task-997", "notes.txt", "task-1.bak", "task-2"])
        #expect(filesUnder(state + "/sessions/x") == ["notes.txt", "task-1"])
        #expect(filesUnder(outside) == ["delivered-task-1", "notes.txt", "task-1", "task-2"])
        #expect(exists(state + "/sessions/link"))
    }

    @Test("purge removes our files in real directories only: other names and link targets stay")
    func purgeKeepsForeignFiles() throws {
        let outside = makeTemporaryDirectory(prefix: "bgs-outside")
        defer { removeTree(outside) }
        writeFile(outside + "/task-1", [1])
        let state = try makeJournal { manager, _ in
            _ = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        }
        defer { removeTree(state) }
        writeFile(state + "/sessions/s/task-1", [2])
        writeFile(state + "/sessions/s/notes.txt", [2])
        symlink(outside, state + "/sessions/link")
        #expect(try SessionsReport.purge(stateDirectory: state) == "Purged 1 task, 0 events and 1 file in \(state).\n")
        #expect(filesUnder(state + "/sessions/s") == ["notes.txt"])
        #expect(filesUnder(outside) == ["task-1"])
    }

    @Test("a session directory that is a symbolic link is not written through: the task fails and says why")
    func sessionDirectoryLink() async throws {
        let outside = makeTemporaryDirectory(prefix: "bgs-outside")
        defer { removeTree(outside) }
        let state = scratchStatePath()
        defer { removeTree(state) }
        let transport = FakeTransport()
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: transport)
        defer { manager.close() }
        mkdir(state + "/sessions", 0o700)
        symlink(outside, state + "/sessions/s")
        let delegate = RecordingDelegate()
        manager.eventRouter = acknowledgingRouter(manager, delegate)
        let task = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        #expect(await delegate.lines(count: 2))
        #expect(delegate.lines.first == "complete \(task.taskIdentifier) \(state)/sessions/s is a symbolic link; background sessions use only a real directory there")
        #expect(transport.startedRequests.isEmpty)
    }

    @Test("a journal's file column cannot make the host link or unlink a path outside the session's directory")
    func fileColumnIgnored() async throws {
        let outside = makeTemporaryDirectory(prefix: "bgs-outside")
        defer { removeTree(outside) }
        let victims = [outside + "/victim", outside + "/old", outside + "/dotdot"]
        for victim in victims { writeFile(victim, Array("keep me".utf8)) }
        let state = try makeJournal()
        defer { removeTree(state) }
        try editJournal(state) { db in
            try insertTask(db, id: 1, session: "s", state: "finished")
            try insertEvent(db, session: "s", taskID: 1, file: victims[0])
            try insertTask(db, id: 2, session: "s", state: "finished")
            try insertEvent(db, session: "s", taskID: 2, file: victims[1], recorded: 1)  // past retention: dropped at open
            try insertTask(db, id: 3, session: "s", state: "finished")
            let up = String(repeating: "../", count: (state + "/sessions/s").split(separator: "/").count)
            try insertEvent(db, session: "s", taskID: 3, file: state + "/sessions/s/" + up + String(outside.dropFirst()) + "/dotdot")
        }
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport())
        defer { manager.close() }
        let delegate = RecordingDelegate()
        manager.eventRouter = acknowledgingRouter(manager, delegate)
        manager.routePendingEvents()
        #expect(await idle(manager))
        let expected = state + "/sessions/s/task-"
        #expect(delegate.lines == ["complete 1 the downloaded file \(expected)1 is missing",
                                   "complete 3 the downloaded file \(expected)3 is missing", "finished s"])
        for victim in victims {
            #expect(exists(victim), "\(victim) was removed")
            var info = stat()
            stat(victim, &info)
            #expect(info.st_nlink == 1, "\(victim) was linked")
        }
    }

    @Test("an existing state directory is made private (0700), the journal, its WAL and the lock 0600")
    func tightened() throws {
        let state = try makeJournal { manager, _ in
            _ = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        }
        defer { removeTree(state) }
        let journal = BackgroundSessionManager.journalPath(stateDirectory: state)
        chmod(state, 0o777)
        for path in [journal, state + "/lock"] { chmod(path, 0o644) }
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport())
        _ = manager.session(identifier: "t").downloadTask(with: URL(string: "http://127.0.0.1:9/y")!)
        #expect(mode(state) == 0o700)
        #expect(mode(journal) == 0o600 && mode(journal + "-wal") == 0o600 && mode(state + "/lock") == 0o600)
        manager.close()
        // A new state directory is private from the start.
        let fresh = try makeJournal()
        defer { removeTree(fresh) }
        #expect(mode(fresh) == 0o700 && mode(BackgroundSessionManager.journalPath(stateDirectory: fresh)) == 0o600)
        #expect(mode(fresh + "/lock") == 0o600)
    }

    @Test("a state directory another user owns is refused", .enabled(if: geteuid() == 0, "needs root to give a directory away"))
    func foreignOwner() throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        mkdir(state, 0o777)
        chmod(state, 0o777)
        chown(state, 65534, 65534)
        #expect(throws: StateDirectoryError.notOwned(path: state, owner: 65534)) {
            try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport())
        }
        #expect(throws: StateDirectoryError.notOwned(path: state, owner: 65534)) { try SessionsReport.purge(stateDirectory: state) }
        #expect(!exists(state + "/lock") && !exists(BackgroundSessionManager.journalPath(stateDirectory: state)))
    }
}
