@testable import BackgroundSessions
import FoundationEssentials
import Glibc
import LeaderboardServer
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

private let garbage = Array("this is not an SQLite database, just text someone wrote here\n".utf8) + [UInt8](repeating: 0x2A, count: 4096)

/// The names in `state` that start with the journal's name and `.corrupt-`.
private func movedAside(_ state: String) -> [String] {
    FilePaths.list(state).filter { $0.hasPrefix("sessions.sqlite.corrupt-") }
}

@Suite("Journal recovery and resumed tasks", .serialized)
struct JournalRecoveryTests {
    @Test("a journal that is not a database is moved aside with its -wal and -shm, said so, and a new one starts")
    func notADatabase() async throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        mkdir(state, 0o700)
        let journal = BackgroundSessionManager.journalPath(stateDirectory: state)
        writeFile(journal, garbage)
        writeFile(journal + "-wal", Array("not a wal".utf8))
        let transport = FakeTransport()
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: transport, now: {
            Date(timeIntervalSince1970: 1_796_014_830)  // 2026-11-30T05:00:30Z
        })
        #expect(manager.availability == .available)
        #expect(movedAside(state) == ["sessions.sqlite.corrupt-20261130T050030Z", "sessions.sqlite.corrupt-20261130T050030Z-wal"])
        #expect(try FileContents.bytes(at: state + "/sessions.sqlite.corrupt-20261130T050030Z") == garbage)
        let notice = try #require(manager.recoveryNotice)
        #expect(notice.hasPrefix("the sessions journal was not a database (") && notice.hasSuffix(
            "): moved aside to sessions.sqlite.corrupt-20261130T050030Z, started a new one"), "\(notice)")
        let task = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        #expect(transport.startedRequests.count == 1)
        manager.close()
        #expect(try SessionsReport.text(stateDirectory: state).contains("task \(task.taskIdentifier): in flight"))
        #expect(try SessionsReport.integrityCheck(stateDirectory: state) == "ok")
        // The next start finds a sound journal: no notice.
        let again = try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport())
        #expect(again.recoveryNotice == nil && again.suspendedTasks.count == 1)
        again.close()
    }

    @Test("sessions on a journal that is not a database says how out; sessions --purge moves it aside and starts anew")
    func purgeNotADatabase() throws {
        let state = try makeJournal()
        defer { removeTree(state) }
        let journal = BackgroundSessionManager.journalPath(stateDirectory: state)
        writeFile(journal, garbage)
        do {
            _ = try SessionsReport.text(stateDirectory: state)
            Issue.record("the report read a file that is not a database")
        } catch let error as SessionsReportError {
            guard case .notADatabase(let path, _) = error else { throw error }
            #expect(path == journal)
            #expect("\(error)".contains("'widgethost sessions --purge' moves it aside"))
        }
        let purged = try SessionsReport.purge(stateDirectory: state)
        let moved = try #require(movedAside(state).first)
        #expect(purged.hasPrefix("The journal \(journal) was not a database ("), "\(purged)")
        #expect(purged.hasSuffix("moved it aside to \(state)/\(moved).\nPurged 0 tasks, 0 events and 0 files in \(state).\n"), "\(purged)")
        #expect(try FileContents.bytes(at: state + "/" + moved) == garbage)
        #expect(try SessionsReport.text(stateDirectory: state) == "No background sessions in \(state).\n")
    }

    @Test("300 in-flight tasks of 3 sessions resume as 3 transfers; the duplicates leave the journal without an event")
    func resumeDeduplicates() async throws {
        let state = try makeJournal()
        defer { removeTree(state) }
        try editJournal(state) { db in
            try db.transaction { () throws(SQLiteError) in
                for i in 0..<300 { try insertTask(db, session: "s\(i % 3)", url: "http://old.invalid/\(i)", description: "board") }
            }
        }
        let transport = FakeTransport()
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: transport)
        let delegate = RecordingDelegate()
        manager.eventRouter = { identifier in
            BackgroundSessionEventsHandler(matcher: .identifier(identifier)) { id, _ in _ = manager.session(identifier: id, delegate: delegate) }
        }
        #expect(manager.suspendedTasks.count == 300)
        let resumed = manager.resumeTasks { session, _ in URL(string: "http://127.0.0.1:9/\(session)") }
        #expect(resumed.map(\.taskIdentifier) == [1, 2, 3], "the oldest of each session")
        #expect(transport.startedRequests.map(\.url) == ["http://127.0.0.1:9/s0", "http://127.0.0.1:9/s1", "http://127.0.0.1:9/s2"])
        #expect(manager.suspendedTasks.isEmpty && manager.pendingEvents.isEmpty)
        // Joining: a widget asking for the same URL gets the running task.
        #expect(manager.session(identifier: "s0").downloadTask(with: URL(string: "http://127.0.0.1:9/s0")!) === resumed[0])
        manager.close()
        let report = try SessionsReport.text(stateDirectory: state)
        #expect(report.contains("3 sessions, 3 tasks (3 in flight), 0 pending events"), "\(report)")
        #expect(delegate.lines.isEmpty)
    }

    @Test("after a restart with 200 in-flight records, one host gets at most its per-host limit of requests at once")
    func resumeHonoursPerHostLimit() async throws {
        let inFlight = Mutex((now: 0, most: 0))
        let requests = Counter()
        let (server, base) = try loopbackServer {
            $0.route("/board") { _ in
                _ = requests.next()
                inFlight.withLock { $0.now += 1; $0.most = max($0.most, $0.now) }
                usleep(20_000)  // the server is slow, so requests overlap if the client lets them
                inFlight.withLock { $0.now -= 1 }
                return .json(Array("{}".utf8))
            }
        }
        defer { server.stop() }
        let state = try makeJournal()
        defer { removeTree(state) }
        try editJournal(state) { db in
            try db.transaction { () throws(SQLiteError) in
                for i in 0..<200 { try insertTask(db, session: "s\(i % 40)", url: base + "/board") }
            }
        }
        let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: try loopbackTransport())
        defer { manager.close() }
        manager.eventRouter = { identifier in
            BackgroundSessionEventsHandler(matcher: .identifier(identifier)) { _, completion in completion() }
        }
        let resumed = manager.resumeTasks { _, _ in URL(string: base + "/board") }
        #expect(resumed.count == 40)
        #expect(await eventually(within: 30) { resumed.allSatisfy { $0.state == .completed } })
        #expect(requests.count == 40)
        #expect(inFlight.withLock { $0.most } <= CurlTransportConfiguration().maxConcurrentPerHost)
    }
}
