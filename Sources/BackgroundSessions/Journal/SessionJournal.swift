import CSQLite
import FoundationEssentials

/// The SQLite journal of background sessions: tasks, finished results (events) and their
/// acknowledgement, in `<state>/sessions.sqlite`.
///
/// WAL mode with `synchronous=FULL`: each commit is on disk before the call returns, so a
/// result recorded (and the transport's file renamed before it) survives a crash or power
/// loss; there are only a few commits per transfer, so the cost does not matter. Not
/// thread-safe: `BackgroundSessionManager` calls it under its lock. Errors throw `SQLiteError`.
final class SessionJournal {
    static let schemaVersion = 1

    private let db: SQLiteDatabase

    /// Opens (and when writable, creates or migrates) the journal at `path`.
    init(path: String, readOnly: Bool) throws(SQLiteError) {
        db = try SQLiteDatabase(path: path, readOnly: readOnly)
        if readOnly {
            try db.execute("PRAGMA query_only=ON")
            return
        }
        try db.query("PRAGMA journal_mode=WAL")
        try db.execute("PRAGMA synchronous=FULL")
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
                CREATE INDEX IF NOT EXISTS events_by_session ON events(session, event_id);
                INSERT OR IGNORE INTO meta(key, value) VALUES ('schema', '\(Self.schemaVersion)');
                """)
        }
    }

    func close() { db.close() }

    // MARK: - Tasks

    /// Records a new running task and returns its identifier (never reused).
    func insertTask(session: String, description: String?, url: String, now: Date) throws(SQLiteError) -> Int {
        let t = now.timeIntervalSince1970
        try db.query("INSERT INTO tasks(session, description, url, state, created, updated) VALUES (?, ?, ?, 'running', ?, ?)",
                     [.text(session), .optional(description), .text(url), .real(t), .real(t)])
        return Int(db.lastInsertRowID)
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
    func recordResult(session: String, taskID: Int, description: String?, url: String, outcome: SessionEvent.Outcome,
                      now: Date, duringWrite: () -> Void = {}) throws(SQLiteError) -> SessionEvent {
        try db.transaction { () throws(SQLiteError) -> SessionEvent in
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
                retryMS = after.map { Int($0.components.seconds * 1000 + $0.components.attoseconds / 1_000_000_000_000_000) }
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

    /// Removes acknowledged events and their tasks, in one transaction.
    func acknowledge(_ events: [SessionEvent]) throws(SQLiteError) {
        guard !events.isEmpty else { return }
        try db.transaction { () throws(SQLiteError) in
            for event in events {
                try db.query("DELETE FROM events WHERE event_id = ?", [.integer(event.eventID)])
                try db.query("DELETE FROM tasks WHERE task_id = ? AND state <> 'running'", [.integer(Int64(event.taskIdentifier))])
            }
        }
    }

    /// Drops the given events (retention) without a delivery; their tasks go with them.
    func discard(_ events: [SessionEvent]) throws(SQLiteError) { try acknowledge(events) }

    /// Removes a task that will never run (purged, or its widget is gone for good).
    func deleteTask(_ taskID: Int) throws(SQLiteError) {
        try db.query("DELETE FROM tasks WHERE task_id = ?", [.integer(Int64(taskID))])
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

    // MARK: - Reading

    /// Every task, oldest first.
    func tasks() throws(SQLiteError) -> [JournaledTask] {
        try db.query("SELECT task_id, session, description, url, state, attempts, last_error, created, updated FROM tasks ORDER BY task_id")
            .map { r in
                JournaledTask(taskIdentifier: Int(r[0].int ?? 0), sessionIdentifier: r[1].string ?? "", taskDescription: r[2].string,
                              url: r[3].string ?? "", state: JournaledTask.State(rawValue: r[4].string ?? "") ?? .running,
                              attempts: Int(r[5].int ?? 0), lastError: r[6].string,
                              created: Date(timeIntervalSince1970: r[7].double ?? 0),
                              updated: Date(timeIntervalSince1970: r[8].double ?? 0))
            }
    }

    /// Every event not yet acknowledged, in delivery order.
    func events() throws(SQLiteError) -> [SessionEvent] {
        try db.query("""
            SELECT event_id, session, task_id, description, url, kind, file, status, byte_count, etag, last_modified,
                   reason, attempts, retry_after_ms, recorded, delivery_count FROM events ORDER BY event_id
            """).map { r in
            let validators = Validators(etag: r[9].string, lastModified: r[10].string)
            let outcome: SessionEvent.Outcome
            switch r[5].string {
            case "downloaded":
                outcome = .downloaded(file: r[6].string ?? "", status: Int(r[7].int ?? 0), byteCount: Int(r[8].int ?? 0),
                                      validators: validators, attempts: Int(r[12].int ?? 1))
            case "notModified": outcome = .notModified(validators)
            case "failed":
                outcome = .failed(reason: r[11].string ?? "", attempts: Int(r[12].int ?? 0),
                                  retryAfter: r[13].int.map { .milliseconds($0) })
            case "unavailable": outcome = .unavailable(r[11].string ?? "")
            default: outcome = .cancelled
            }
            return SessionEvent(eventID: r[0].int ?? 0, sessionIdentifier: r[1].string ?? "", taskIdentifier: Int(r[2].int ?? 0),
                                taskDescription: r[3].string, url: r[4].string ?? "", outcome: outcome,
                                recorded: Date(timeIntervalSince1970: r[14].double ?? 0), deliveryCount: Int(r[15].int ?? 0))
        }
    }

    /// `PRAGMA integrity_check`'s answer ("ok" when sound).
    func integrityCheck() throws(SQLiteError) -> String {
        try db.query("PRAGMA integrity_check").compactMap { $0.first?.string }.joined(separator: "\n")
    }
}
