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
