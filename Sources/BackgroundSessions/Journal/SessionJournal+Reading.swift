import CSQLite
import FoundationEssentials
import Glibc
import WidgetCore

/// Reading the journal: what a start loads and what `widgethost sessions` lists; every value
/// read is bounded (see the type's constants).
extension SessionJournal {
    // MARK: - Reading (for the host)

    static let taskColumns = """
        task_id, substr(session, 1, \(maxSessionLength)), substr(description, 1, \(maxTextLength)),
        substr(url, 1, \(maxURLLength)), state, attempts, substr(last_error, 1, \(maxTextLength)), created, updated
        """

    static let eventColumns = """
        event_id, substr(session, 1, \(maxSessionLength)), task_id, substr(description, 1, \(maxTextLength)),
        substr(url, 1, \(maxURLLength)), kind, status, byte_count, substr(etag, 1, \(maxTextLength)),
        substr(last_modified, 1, \(maxTextLength)), substr(reason, 1, \(maxTextLength)), attempts, retry_after_ms,
        recorded, delivery_count
        """

    /// Every task, oldest first (tests, small journals; the host reads `runningTasks()`).
    func tasks() throws(SQLiteError) -> [JournaledTask] {
        try db.query("SELECT \(Self.taskColumns) FROM tasks ORDER BY task_id").map(Self.task)
    }

    /// The tasks left running (in flight when the host stopped), oldest first.
    func runningTasks() throws(SQLiteError) -> [JournaledTask] {
        try db.query("SELECT \(Self.taskColumns) FROM tasks WHERE state = 'running' ORDER BY task_id").map(Self.task)
    }

    /// Every event not yet acknowledged, in delivery order. A download's `file` is
    /// `bodyPath(session, taskID)`: the path stored in the journal is never used.
    func events(bodyPath: (String, Int) -> String) throws(SQLiteError) -> [SessionEvent] {
        try db.query("SELECT \(Self.eventColumns) FROM events ORDER BY event_id").map { Self.event($0, bodyPath: bodyPath) }
    }

    /// The session of task `id` as the journal records it (its task, or an event of it), or
    /// nil when the journal does not know the task.
    func session(ofTask id: Int) throws(SQLiteError) -> String? {
        let rows = try db.query("""
            SELECT session FROM tasks WHERE task_id = ?1 UNION ALL SELECT session FROM events WHERE task_id = ?1 LIMIT 1
            """, [.integer(Int64(id))])
        return rows.first?.first?.string
    }

    // MARK: - Reading (for `widgethost sessions`: aggregates, bounded listings)

    /// Whether the journal has the indexes its size needs (a large one's report queries need
    /// them; `SessionJournal.indexedRows`).
    func hasCurrentSchema() throws(SQLiteError) -> Bool {
        if try db.query("SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'tasks_by_session'").count == 1 { return true }
        return try !Self.isLarge(db)
    }

    /// Counts over the whole journal.
    func totals() throws(SQLiteError) -> (tasks: Int, running: Int, events: Int, sessions: Int) {
        let tasks = try db.query("SELECT COUNT(*), COALESCE(SUM(state = 'running'), 0) FROM tasks")
        let events = try db.query("SELECT COUNT(*) FROM events")
        let sessions = try db.query("SELECT COUNT(*) FROM (SELECT session FROM tasks UNION SELECT session FROM events)")
        func n(_ rows: [[SQLiteDatabase.Value]], _ column: Int) -> Int { Self.count(rows.first?[column] ?? .null) }
        return (n(tasks, 0), n(tasks, 1), n(events, 0), n(sessions, 0))
    }

    /// The first `limit` session identifiers in SQLite's order, as stored (any type).
    func sessionKeys(limit: Int) throws(SQLiteError) -> [SQLiteDatabase.Value] {
        try db.query("SELECT session FROM tasks UNION SELECT session FROM events ORDER BY 1 LIMIT ?",
                     [.integer(Int64(limit))]).compactMap(\.first)
    }

    /// How many tasks a session has in each state.
    func taskCounts(session: SQLiteDatabase.Value) throws(SQLiteError) -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try db.query("SELECT state, COUNT(*) FROM tasks WHERE session = ? GROUP BY state", [session]) {
            counts[Self.displayText(row[0]), default: 0] += Self.count(row[1])
        }
        return counts
    }

    /// A session's tasks in `state`, oldest first, at most `limit`.
    func tasks(session: SQLiteDatabase.Value, state: String, limit: Int) throws(SQLiteError) -> [JournaledTask] {
        try db.query("SELECT \(Self.taskColumns) FROM tasks WHERE session = ? AND state = ? ORDER BY task_id LIMIT ?",
                     [session, .text(state), .integer(Int64(limit))]).map(Self.task)
    }

    func eventCount(session: SQLiteDatabase.Value) throws(SQLiteError) -> Int {
        Self.count(try db.query("SELECT COUNT(*) FROM events WHERE session = ?", [session]).first?.first ?? .null)
    }

    /// A session's first `limit` events in delivery order (`file` left empty).
    func events(session: SQLiteDatabase.Value, limit: Int) throws(SQLiteError) -> [SessionEvent] {
        try db.query("SELECT \(Self.eventColumns) FROM events WHERE session = ? ORDER BY event_id LIMIT ?",
                     [session, .integer(Int64(limit))]).map { Self.event($0, bodyPath: { _, _ in "" }) }
    }

    // MARK: - Rows to values (any column may hold any type: nothing traps)

    static func task(_ r: [SQLiteDatabase.Value]) -> JournaledTask {
        JournaledTask(taskIdentifier: Int(r[0].int ?? 0), sessionIdentifier: r[1].string ?? "", taskDescription: r[2].string,
                      url: r[3].string ?? "", state: JournaledTask.State(rawValue: r[4].string ?? "") ?? .running,
                      attempts: count(r[5]), lastError: r[6].string, created: date(r[7]), updated: date(r[8]))
    }

    static func event(_ r: [SQLiteDatabase.Value], bodyPath: (String, Int) -> String) -> SessionEvent {
        let session = r[1].string ?? "", taskID = Int(r[2].int ?? 0)
        let validators = Validators(etag: r[8].string, lastModified: r[9].string)
        let outcome: SessionEvent.Outcome
        switch r[5].string {
        case "downloaded":
            outcome = .downloaded(file: bodyPath(session, taskID), status: status(r[6]), byteCount: count(r[7]),
                                  validators: validators, attempts: r[11].int == nil ? 1 : count(r[11]))
        case "notModified": outcome = .notModified(validators)
        case "failed":
            let retryAfter = r[12].int.flatMap { $0 < 0 ? nil : Duration.milliseconds(min($0, maxRetryAfterMilliseconds)) }
            outcome = .failed(reason: r[10].string ?? "", attempts: count(r[11]), retryAfter: retryAfter)
        case "unavailable": outcome = .unavailable(r[10].string ?? "")
        default: outcome = .cancelled
        }
        return SessionEvent(eventID: r[0].int ?? 0, sessionIdentifier: session, taskIdentifier: taskID,
                            taskDescription: r[3].string, url: r[4].string ?? "", outcome: outcome,
                            recorded: date(r[13]), deliveryCount: count(r[14]))
    }

    /// A count (attempts, bytes, deliveries): 0 when missing, negative or not a number.
    static func count(_ value: SQLiteDatabase.Value) -> Int { max(0, Int(value.int ?? 0)) }

    /// An HTTP status: 0 unless 0…999.
    static func status(_ value: SQLiteDatabase.Value) -> Int {
        guard let s = value.int, (0...999).contains(s) else { return 0 }
        return Int(s)
    }

    /// Seconds since 1970 between years 1 and 9999; anything else reads as 1970.
    static func date(_ value: SQLiteDatabase.Value) -> Date {
        guard let t = value.double, (-62_135_596_800...253_402_300_799).contains(t) else { return Date(timeIntervalSince1970: 0) }
        return Date(timeIntervalSince1970: t)
    }

    /// A value as text for listings (a hand-edited journal may hold numbers or blobs anywhere).
    static func displayText(_ value: SQLiteDatabase.Value) -> String {
        switch value {
        case .null: "(null)"
        case .integer(let i): "\(i)"
        case .real(let d): "\(d)"
        case .text(let s): s
        case .blob(let b): "x'" + b.prefix(64).map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() + (b.count > 64 ? "…" : "") + "'"
        }
    }

    /// Whole milliseconds of a duration, rounded up and clamped (a server's wait can be anything).
    static func milliseconds(_ d: Duration) -> Int64 { d.wholeMillisecondsRoundedUp }

    /// `PRAGMA integrity_check`'s answer ("ok" when sound).
    func integrityCheck() throws(SQLiteError) -> String {
        try db.query("PRAGMA integrity_check").compactMap { $0.first?.string }.joined(separator: "\n")
    }
}
