import CSQLite
import WidgetCore
import FoundationEssentials
import Glibc

/// The SQLite journal of background sessions: tasks, finished results (events) and their
/// acknowledgement, in `<state>/sessions.sqlite`.
///
/// WAL mode with `synchronous=NORMAL`: a commit is in the WAL (the kernel's page cache) before
/// the call returns, so nothing committed is lost when the host is killed, and commits cost no
/// fsync; the WAL and the database are fsynced only by a checkpoint (`checkpointIfDue`, every
/// ~1000 pages, dozens of fetches; SQLite's automatic ones are off) and by the commit after
/// one (the WAL's new header). A power loss or kernel crash can roll the journal back to its
/// last checkpoint — never corrupt it: tasks then run again and results are fetched again, the
/// server still has them (docs/decisions.md "Journal durability"). Not thread-safe:
/// `SessionStore` serialises every use. Errors throw `SQLiteError`.
final class SessionJournal {
    /// 2: `tasks_by_session(session, state)`, so `widgethost sessions` aggregates in SQL.
    /// 3: the `_by_session` indexes only on a large journal (`indexedRows`).
    static let schemaVersion = 3

    /// Rows (tasks, or events) from which the journal has its `_by_session` indexes: each is
    /// one more page in four of a fetch's five commits (5 of its 13 WAL frames), and a journal
    /// of a few rows — the usual one: a fetch's rows are gone when it is delivered — is
    /// scanned in microseconds without them; one of a million tasks takes `widgethost sessions`
    /// most of a minute without, a second with. Decided at each writable open.
    static let indexedRows = 10_000

    /// Longest text read back from a column (characters): a hand-edited journal cannot make
    /// the host or `widgethost sessions` hold megabytes per row.
    static let maxSessionLength = 1024
    static let maxURLLength = 8192
    static let maxTextLength = 4096
    /// The longest server wait read back (a day); the transport never asks for that much.
    static let maxRetryAfterMilliseconds: Int64 = 86_400_000

    let db: SQLiteDatabase

    /// Opens (and when writable, creates or migrates) the journal at `path`.
    ///
    /// Writable: the file and its `-wal`/`-shm` are private to the user (0600). A file that is
    /// not a database throws an `SQLiteError` whose `isNotADatabase` is true (see `moveAside`).
    init(path: String, readOnly: Bool) throws(SQLiteError) {
        if !Self.mayBeDatabase(path) {
            // Before SQLite sees it: SQLite would delete a `-wal` it cannot read on close, and
            // the file moved aside should keep everything that was there.
            throw SQLiteError(code: 26, message: "file is not a database")
        }
        if !readOnly { Self.makePrivate(path) }
        db = try SQLiteDatabase(path: path, readOnly: readOnly)
        if readOnly {
            try db.execute("PRAGMA query_only=ON")
            // A file that is not a database fails here, not at a later query.
            try db.query("SELECT COUNT(*) FROM sqlite_schema")
            return
        }
        try Self.usePageSize(db)
        try db.query("PRAGMA journal_mode=WAL")
        try db.execute("PRAGMA synchronous=NORMAL")
        try db.transaction { () throws(SQLiteError) in
            try db.execute("""
                CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
                CREATE TABLE IF NOT EXISTS tasks(
                    task_id INTEGER PRIMARY KEY AUTOINCREMENT,
                    session TEXT NOT NULL,
                    description TEXT,
                    url TEXT NOT NULL,
                    state TEXT NOT NULL CHECK (state IN ('running', 'finished', 'cancelled')),
                    attempts INTEGER NOT NULL DEFAULT 0,
                    last_error TEXT,
                    created REAL NOT NULL,
                    updated REAL NOT NULL);
                CREATE TABLE IF NOT EXISTS events(
                    event_id INTEGER PRIMARY KEY AUTOINCREMENT,
                    session TEXT NOT NULL,
                    task_id INTEGER NOT NULL,
                    description TEXT,
                    url TEXT NOT NULL,
                    kind TEXT NOT NULL CHECK (kind IN ('downloaded', 'notModified', 'failed', 'cancelled', 'unavailable')),
                    file TEXT, status INTEGER, byte_count INTEGER, etag TEXT, last_modified TEXT,
                    reason TEXT, attempts INTEGER, retry_after_ms INTEGER,
                    recorded REAL NOT NULL,
                    delivery_count INTEGER NOT NULL DEFAULT 0);
                INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', '\(Self.schemaVersion)');
                UPDATE meta SET value = '\(Self.schemaVersion)'
                    WHERE key = 'schema' AND CAST(value AS INTEGER) < \(Self.schemaVersion);
                """)
            try db.execute(try Self.isLarge(db)
                ? "CREATE INDEX IF NOT EXISTS events_by_session ON events(session, event_id); CREATE INDEX IF NOT EXISTS tasks_by_session ON tasks(session, state);"
                : "DROP INDEX IF EXISTS events_by_session; DROP INDEX IF EXISTS tasks_by_session;")
        }
        for suffix in ["", "-wal", "-shm"] { chmod(path + suffix, 0o600) }
        db.observeCommits(commits)
    }

    /// The WAL's frames after the last commit (SQLite's WAL hook, which also turns its own
    /// checkpoints off: `checkpointIfDue` is the only one while the journal is open).
    private let commits = WALCommits()

    /// The WAL frames at which `checkpointIfDue` copies the WAL into the database (SQLite's
    /// automatic checkpoint is at 1000): about 125 fetches (8 frames each).
    static let checkpointFrames = 1000

    /// True when a commit now is only an append to the WAL: no fsync at `synchronous=NORMAL`.
    /// False after opening and after a checkpoint that copied the whole WAL, until the next
    /// commit: that one starts the WAL again from its beginning, and SQLite fsyncs the new WAL
    /// header before writing frames behind it (so that frames of the old WAL can never be
    /// replayed over the database after a power loss).
    var commitOnlyAppends: Bool { commits.frames > 0 }

    /// Copies the WAL into the database when it holds `frames` frames or more (passive: waits
    /// for nobody); true when it ran. It fsyncs the WAL and the database, so it is run where a
    /// wait does not matter — on the transport's thread, before it records a result — and never
    /// on the loop's. Having copied everything, the next commit restarts the WAL (see
    /// `commitOnlyAppends`).
    @discardableResult
    func checkpointIfDue(frames: Int = SessionJournal.checkpointFrames, before: () -> Void = {}) throws(SQLiteError) -> Bool {
        guard commits.frames >= frames else { return false }
        before()
        let (log, copied) = try db.checkpoint()
        if log == copied { commits.frames = -1 }
        return true
    }

    /// The journal's page size. Every commit appends each page it changed to the WAL (a frame:
    /// the page and 24 bytes), and a fetch changes about a dozen (task, result, delivery,
    /// acknowledgement: the tables, their indexes and `sqlite_sequence`, a page each while the
    /// journal is near empty): 7 KB a fetch at 512 bytes, 13.6 KB at 1 KiB, 53 KB at SQLite's
    /// default 4 KiB. A large journal's trees get a level deeper than at 1 KiB, which
    /// `widgethost sessions` does not notice.
    static let pageSize = 512

    /// New journals get `pageSize`; a small one made with another size is rebuilt with it
    /// (VACUUM, out of WAL mode: needs no reader — when `widgethost sessions` has it open the
    /// journal stays as it is until the next start). A large one keeps its size.
    private static func usePageSize(_ db: SQLiteDatabase) throws(SQLiteError) {
        guard let size = try db.query("PRAGMA page_size").first?.first?.int, size != Int64(pageSize) else { return }
        let pages = try db.query("PRAGMA page_count").first?.first?.int ?? 0
        if pages == 0 {
            try db.execute("PRAGMA page_size=\(pageSize)")
        } else if pages <= 256 {
            do {
                try db.query("PRAGMA journal_mode=DELETE")
                try db.execute("PRAGMA page_size=\(pageSize); VACUUM")
            } catch {
                // Busy (a reader): keep the old size; the caller turns WAL back on.
            }
        }
    }

    /// Whether the journal holds `indexedRows` tasks or events (counting stops there).
    static func isLarge(_ db: SQLiteDatabase) throws(SQLiteError) -> Bool {
        let rows = try db.query("""
            SELECT (SELECT COUNT(*) FROM (SELECT 1 FROM tasks LIMIT ?1)) >= ?1 OR (SELECT COUNT(*) FROM (SELECT 1 FROM events LIMIT ?1)) >= ?1
            """, [.integer(Int64(indexedRows))])
        return rows.first?.first?.int == 1
    }

    /// False when `path` holds bytes that do not start with SQLite's header ("SQLite format 3").
    /// A missing or empty file may become a database; one that cannot be read is left to SQLite.
    static func mayBeDatabase(_ path: String) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { Glibc.close(fd) }
        var header = [UInt8](repeating: 0, count: 16)
        let n = header.withUnsafeMutableBytes { read(fd, $0.baseAddress, 16) }
        return n <= 0 || (n == 16 && header == Array("SQLite format 3\0".utf8))
    }

    /// Creates `path` empty and private (0600) when missing, or makes it private; SQLite then
    /// gives its `-wal` and `-shm` the same mode. Never follows a symbolic link.
    private static func makePrivate(_ path: String) {
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        if fd >= 0 {
            fchmod(fd, 0o600)
            Glibc.close(fd)
        }
    }

    /// Renames a journal that is not a database (and its `-wal`/`-shm`) to
    /// `<name>.corrupt-<UTC time>` beside it, so a new one can start; returns the new path.
    static func moveAside(path: String, now: Date) throws(FileSystemError) -> String {
        let stamp = SessionsReport.compactTimestamp(now)
        var target = "\(path).corrupt-\(stamp)"
        var n = 2
        while FilePaths.exists(target) || FilePaths.exists(target + "-wal") {
            target = "\(path).corrupt-\(stamp)-\(n)"
            n += 1
        }
        guard rename(path, target) == 0 else { throw FileSystemError(operation: "move aside", path: path, errno: errno) }
        chmod(target, 0o600)
        for suffix in ["-wal", "-shm"] where FilePaths.exists(path + suffix) {
            // Never left beside the new journal: SQLite could replay an old WAL into it.
            if rename(path + suffix, target + suffix) != 0 { unlink(path + suffix) } else { chmod(target + suffix, 0o600) }
        }
        return target
    }

    func close() { db.close() }

    // MARK: - Tasks

    /// Records a new running task and returns its identifier (never reused): `taskID` when
    /// given (one `SessionStore` handed out, see `firstUnusedTaskID`), else the next row id.
    func insertTask(session: String, description: String?, url: String, now: Date, taskID: Int? = nil) throws(SQLiteError) -> Int {
        let t = now.timeIntervalSince1970
        try db.query("INSERT INTO tasks(task_id, session, description, url, state, created, updated) VALUES (?, ?, ?, ?, 'running', ?, ?)",
                     [.optional(taskID), .text(session), .optional(description), .text(url), .real(t), .real(t)])
        return Int(db.lastInsertRowID)
    }

    /// The first task identifier the journal has never given (above `sqlite_sequence`'s and
    /// every row's): the store hands out identifiers from here, journalled or not.
    func firstUnusedTaskID() throws(SQLiteError) -> Int {
        let rows = try db.query("""
            SELECT MAX(COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'tasks'), 0),
                       COALESCE((SELECT MAX(task_id) FROM tasks), 0),
                       COALESCE((SELECT MAX(task_id) FROM events), 0)) + 1
            """)
        return Int(clamping: max(rows.first?.first?.int ?? 1, 1))
    }

    /// Points a running task at `url` (the widget's URL now, when it is resumed).
    func updateTaskURL(_ taskID: Int, url: String, now: Date) throws(SQLiteError) {
        try db.query("UPDATE tasks SET url = ?, updated = ? WHERE task_id = ?",
                     [.text(url), .real(now.timeIntervalSince1970), .integer(Int64(taskID))])
    }

    /// Records a failed attempt that will be retried.
    func recordAttempt(_ taskID: Int, attempts: Int, reason: String, now: Date) throws(SQLiteError) {
        try db.query("UPDATE tasks SET attempts = ?, last_error = ?, updated = ? WHERE task_id = ?",
                     [.integer(Int64(attempts)), .text(reason), .real(now.timeIntervalSince1970), .integer(Int64(taskID))])
    }

    /// In one transaction: marks the task finished (or cancelled) and appends its event.
    ///
    /// `duringWrite` runs inside the transaction, before the commit (crash tests stop there).
    /// `insertingTask`: the task was never journalled (it ran in memory, see
    /// `BackgroundSessionManager.downloadTask`): its row is made in the same transaction.
    func recordResult(session: String, taskID: Int, description: String?, url: String, outcome: SessionEvent.Outcome,
                      now: Date, insertingTask: Bool = false, duringWrite: () -> Void = {}) throws(SQLiteError) -> SessionEvent {
        try db.transaction { () throws(SQLiteError) -> SessionEvent in
            if insertingTask { _ = try insertTask(session: session, description: description, url: url, now: now, taskID: taskID) }
            let t = now.timeIntervalSince1970
            let state = outcome == .cancelled ? "cancelled" : "finished"
            var attempts: Int?
            var kind = "", file: String?, status: Int?, count: Int?, etag: String?, modified: String?
            var reason: String?, retryMS: Int?
            switch outcome {
            case .downloaded(let f, let s, let c, let v, let a):
                (kind, file, status, count, etag, modified, attempts) = ("downloaded", f, s, c, v.etag, v.lastModified, a)
            case .notModified(let v): (kind, etag, modified) = ("notModified", v.etag, v.lastModified)
            case .failed(let r, let a, let after):
                (kind, reason, attempts) = ("failed", r, a)
                retryMS = after.map { Int(Self.milliseconds($0)) }
            case .cancelled: kind = "cancelled"
            case .unavailable(let m): (kind, reason) = ("unavailable", m)
            }
            try db.query("UPDATE tasks SET state = ?, attempts = COALESCE(?, attempts), updated = ? WHERE task_id = ?",
                         [.text(state), .optional(attempts), .real(t), .integer(Int64(taskID))])
            try db.query("""
                INSERT INTO events(session, task_id, description, url, kind, file, status, byte_count, etag,
                                   last_modified, reason, attempts, retry_after_ms, recorded)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, [.text(session), .integer(Int64(taskID)), .optional(description), .text(url), .text(kind),
                      .optional(file), .optional(status), .optional(count), .optional(etag), .optional(modified),
                      .optional(reason), .optional(attempts), .optional(retryMS), .real(t)])
            let id = db.lastInsertRowID
            duringWrite()
            return SessionEvent(eventID: id, sessionIdentifier: session, taskIdentifier: taskID,
                                taskDescription: description, url: url, outcome: outcome, recorded: now, deliveryCount: 0)
        }
    }

    /// Counts one more delivery of each event.
    func markDelivered(_ eventIDs: [Int64]) throws(SQLiteError) {
        guard !eventIDs.isEmpty else { return }
        try db.transaction { () throws(SQLiteError) in
            for id in eventIDs {
                try db.query("UPDATE events SET delivery_count = delivery_count + 1 WHERE event_id = ?", [.integer(id)])
            }
        }
    }

    /// Removes acknowledged (or discarded) events, in one transaction. Their tasks stay until
    /// `forgetTasks`, after the files are gone: the open-time sweep removes only files the
    /// journal still knows, so a crash in between leaves nothing behind for good.
    func acknowledge(_ events: [SessionEvent]) throws(SQLiteError) {
        guard !events.isEmpty else { return }
        try db.transaction { () throws(SQLiteError) in
            for event in events {
                try db.query("DELETE FROM events WHERE event_id = ?", [.integer(event.eventID)])
            }
        }
    }

    /// Drops the given events (retention) without a delivery; see `acknowledge`.
    func discard(_ events: [SessionEvent]) throws(SQLiteError) { try acknowledge(events) }

    /// Removes finished or cancelled tasks (their events acknowledged and files removed).
    func forgetTasks(_ taskIDs: [Int]) throws(SQLiteError) {
        guard !taskIDs.isEmpty else { return }
        try db.transaction { () throws(SQLiteError) in
            for id in taskIDs {
                try db.query("DELETE FROM tasks WHERE task_id = ? AND state <> 'running'", [.integer(Int64(id))])
            }
        }
    }

    /// Removes finished or cancelled tasks that no event refers to any more (a host stopped
    /// between an acknowledgement and `forgetTasks`). Run after the open-time sweep.
    func forgetSettledTasks() throws(SQLiteError) {
        try db.query("DELETE FROM tasks WHERE state <> 'running' AND task_id NOT IN (SELECT task_id FROM events)")
    }

    /// Removes a task that will never run (purged, or its widget is gone for good).
    func deleteTask(_ taskID: Int) throws(SQLiteError) { try deleteTasks([taskID]) }

    /// Removes tasks that will never run, in one transaction (duplicates of a resumed task).
    func deleteTasks(_ taskIDs: [Int]) throws(SQLiteError) {
        guard !taskIDs.isEmpty else { return }
        try db.transaction { () throws(SQLiteError) in
            for id in taskIDs { try db.query("DELETE FROM tasks WHERE task_id = ?", [.integer(Int64(id))]) }
        }
    }

    /// Removes every task and event; returns how many of each there were.
    func purge() throws(SQLiteError) -> (tasks: Int, events: Int) {
        try db.transaction { () throws(SQLiteError) -> (tasks: Int, events: Int) in
            let tasks = try db.query("SELECT COUNT(*) FROM tasks")[0][0].int ?? 0
            let events = try db.query("SELECT COUNT(*) FROM events")[0][0].int ?? 0
            try db.execute("DELETE FROM tasks; DELETE FROM events;")
            return (Int(tasks), Int(events))
        }
    }
}
