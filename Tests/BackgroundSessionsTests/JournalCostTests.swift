@testable import BackgroundSessions
import FoundationEssentials
import Glibc
import Testing

/// What a fetch costs the journal on disk (README "Performance", figure 8): the page size that
/// bounds the WAL bytes a commit appends, and the commits a fetch makes.
@Suite("Journal cost per fetch")
struct JournalCostTests {
    private func pageSize(_ path: String) throws -> Int64? {
        let db = try SQLiteDatabase(path: path, readOnly: true)
        defer { db.close() }
        return try db.query("PRAGMA page_size").first?.first?.int
    }

    @Test("a new journal has 512-byte pages, so each page a commit changes appends half a KiB to the WAL, not 4 KiB")
    func newJournalPageSize() throws {
        let dir = ScratchDirectory()
        let path = dir.path + "/sessions.sqlite"
        let journal = try SessionJournal(path: path, readOnly: false)
        _ = try journal.insertTask(session: "s", description: nil, url: "http://127.0.0.1:9/", now: Date())
        journal.close()
        #expect(try pageSize(path) == Int64(SessionJournal.pageSize))
        #expect(SessionJournal.pageSize == 512)
    }

    @Test("a small journal made with 4 KiB pages is rebuilt with 512-byte pages at open, its rows kept")
    func smallJournalRebuilt() throws {
        let dir = ScratchDirectory()
        let path = dir.path + "/sessions.sqlite"
        do {
            let db = try SQLiteDatabase(path: path, readOnly: false)
            try db.execute("PRAGMA page_size=4096")
            try db.query("PRAGMA journal_mode=WAL")
            try db.execute("CREATE TABLE kept(x); INSERT INTO kept VALUES (42)")
            db.close()
        }
        #expect(try pageSize(path) == 4096)
        let journal = try SessionJournal(path: path, readOnly: false)
        let id = try journal.insertTask(session: "s", description: "board", url: "http://127.0.0.1:9/", now: Date())
        journal.close()
        #expect(try pageSize(path) == 512)
        let db = try SQLiteDatabase(path: path, readOnly: true)
        defer { db.close() }
        #expect(try db.query("SELECT x FROM kept").first?.first?.int == 42)
        #expect(try db.query("PRAGMA journal_mode").first?.first?.string == "wal")
        #expect(try db.query("SELECT task_id FROM tasks").first?.first?.int == Int64(id))
    }

    private func walSize(_ path: String) -> Int {
        var info = stat()
        return stat(path + "-wal", &info) == 0 ? Int(info.st_size) : 0
    }

    @Test("a 304's five commits (task, result, delivery count, acknowledgement, task forgotten) append 8 WAL frames (4.2 KB; 13 with the indexes)")
    func framesPerFetch() throws {
        let dir = ScratchDirectory()
        let path = dir.path + "/sessions.sqlite"
        let journal = try SessionJournal(path: path, readOnly: false)
        defer { journal.close() }
        var appended: [Int] = []
        for n in 0..<3 {
            let before = walSize(path)
            let id = try journal.insertTask(session: "board", description: "leaderboard", url: "http://127.0.0.1:9/board", now: Date())
            let event = try journal.recordResult(session: "board", taskID: id, description: "leaderboard", url: "http://127.0.0.1:9/board",
                                                 outcome: .notModified(Validators(etag: "\"v\(n)\"", lastModified: nil)), now: Date())
            try journal.markDelivered([event.eventID])
            try journal.acknowledge([event])
            try journal.forgetTasks([id])
            appended.append(walSize(path) - before)
        }
        // The first fetch also writes the WAL's header (32 bytes).
        #expect(appended.dropFirst().allSatisfy { $0 == 8 * (SessionJournal.pageSize + 24) }, "WAL bytes per fetch: \(appended)")
    }

    @Test("a small journal has no _by_session indexes (one more WAL page each in most commits); a large one gets them at open")
    func indexesOnlyWhenLarge() throws {
        let dir = ScratchDirectory()
        let path = dir.path + "/sessions.sqlite"
        func indexes() throws -> [String] {
            let db = try SQLiteDatabase(path: path, readOnly: true)
            defer { db.close() }
            return try db.query("SELECT name FROM sqlite_schema WHERE type = 'index' AND name LIKE '%_by_session' ORDER BY name")
                .compactMap { $0.first?.string }
        }
        do {
            let journal = try SessionJournal(path: path, readOnly: false)
            _ = try journal.insertTask(session: "s", description: nil, url: "http://127.0.0.1:9/", now: Date())
            // As schema 2 left it: both indexes on a small journal.
            try journal.db.execute("""
                CREATE INDEX events_by_session ON events(session, event_id); CREATE INDEX tasks_by_session ON tasks(session, state);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(SessionJournal.indexedRows - 2))
                INSERT INTO tasks(session, url, state, created, updated) SELECT 'bulk', 'http://127.0.0.1:9/', 'running', 0, 0 FROM n;
                """)
            journal.close()
        }
        #expect(try indexes() == ["events_by_session", "tasks_by_session"])
        try SessionJournal(path: path, readOnly: false).close()
        #expect(try indexes() == [], "\(SessionJournal.indexedRows - 1) tasks: small")
        let journal = try SessionJournal(path: path, readOnly: false)
        _ = try journal.insertTask(session: "s", description: nil, url: "http://127.0.0.1:9/2", now: Date())
        journal.close()
        try SessionJournal(path: path, readOnly: false).close()
        #expect(try indexes() == ["events_by_session", "tasks_by_session"])
        let reader = try SessionJournal(path: path, readOnly: true)
        defer { reader.close() }
        #expect(try reader.hasCurrentSchema())
        #expect(try reader.runningTasks().count == SessionJournal.indexedRows)
    }

    @Test("the journal is in WAL mode: a commit is in the WAL file before the call returns (kept when the host is killed)")
    func walMode() throws {
        let dir = ScratchDirectory()
        let path = dir.path + "/sessions.sqlite"
        let journal = try SessionJournal(path: path, readOnly: false)
        defer { journal.close() }
        _ = try journal.insertTask(session: "s", description: nil, url: "http://127.0.0.1:9/", now: Date())
        var info = stat()
        #expect(stat(path + "-wal", &info) == 0 && info.st_size > 0)
        // Another connection (as a new host after a kill) sees the commit.
        let reader = try SessionJournal(path: path, readOnly: true)
        defer { reader.close() }
        #expect(try reader.runningTasks().count == 1)
    }
}

@Suite("Journal checkpoints (only where a wait does not matter)")
struct JournalCheckpointTests {
    private func walSize(_ path: String) -> Int {
        var info = stat()
        return stat(path + "-wal", &info) == 0 ? Int(info.st_size) : 0
    }

    @Test("SQLite checkpoints nothing by itself: the WAL grows past 1000 pages until checkpointIfDue copies it")
    func noAutomaticCheckpoint() throws {
        let dir = ScratchDirectory()
        let path = dir.path + "/sessions.sqlite"
        let journal = try SessionJournal(path: path, readOnly: false)
        defer { journal.close() }
        for n in 0..<600 { _ = try journal.insertTask(session: "s\(n)", description: nil, url: "http://127.0.0.1:9/\(n)", now: Date()) }
        let grown = walSize(path)
        #expect(grown > (SessionJournal.checkpointFrames + 100) * SessionJournal.pageSize, "no checkpoint at 1000 frames")
        #expect(try journal.checkpointIfDue())
        #expect(try !journal.checkpointIfDue(), "nothing due until the WAL grows again")
        _ = try journal.insertTask(session: "t", description: nil, url: "http://127.0.0.1:9/t", now: Date())
        let reader = try SessionJournal(path: path, readOnly: true)
        defer { reader.close() }
        #expect(try reader.runningTasks().count == 601)
    }

    @Test("a commit only appends to the WAL except the first after opening and after a checkpoint that copied it all (that one starts the WAL again and fsyncs its header)")
    func commitOnlyAppends() throws {
        let dir = ScratchDirectory()
        let path = dir.path + "/sessions.sqlite"
        let journal = try SessionJournal(path: path, readOnly: false)
        defer { journal.close() }
        #expect(!journal.commitOnlyAppends, "after opening")
        _ = try journal.insertTask(session: "s", description: nil, url: "http://127.0.0.1:9/", now: Date())
        #expect(journal.commitOnlyAppends)
        #expect(try !journal.checkpointIfDue(frames: 1000))
        #expect(journal.commitOnlyAppends)
        #expect(try journal.checkpointIfDue(frames: 1))
        #expect(!journal.commitOnlyAppends, "the next commit restarts the WAL")
        _ = try journal.insertTask(session: "s", description: nil, url: "http://127.0.0.1:9/2", now: Date())
        #expect(journal.commitOnlyAppends)
    }
}
