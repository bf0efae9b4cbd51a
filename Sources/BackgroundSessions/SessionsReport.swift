import FoundationEssentials
import Glibc

/// The text of `widgethost sessions` and `widgethost sessions --purge`.
///
/// `text` reads: it opens the journal read-only and works while a running host holds the
/// state directory's lock. The one write it may make is to bring a journal written by an
/// older version up to the current schema (its indexes, which a journal of
/// `SessionJournal.indexedRows` rows or more has), when no host holds the lock: without the
/// indexes a journal of a million tasks takes most of a minute to list, with them a second.
/// `purge` takes the lock and fails when a host holds it.
///
/// The journal may be huge or edited by hand: the report counts in SQL (a large journal's
/// indexes `tasks_by_session`, `events_by_session`), lists at most `maxSessions` sessions and
/// `maxListed` tasks and events of each, and prints every field from the journal through
/// `ReportText` (controls inert, credentials hidden, at most `maxFieldLength` characters).
public enum SessionsReport {
    /// Sessions listed; the others are counted.
    static let maxSessions = 50
    /// Tasks, and events, listed per session; the others are counted.
    static let maxListed = 20
    /// Longest identifier, URL or reason printed (characters).
    static let maxFieldLength = 200

    /// Lists the sessions: their tasks (in flight first: state, attempts, URL, last error) and
    /// the events waiting to be delivered. Throws `SessionsReportError.notADatabase` for a
    /// journal that is not a database, `SQLiteError` when it cannot be read.
    public static func text(stateDirectory: String) throws -> String {
        let path = BackgroundSessionManager.journalPath(stateDirectory: stateDirectory)
        let directory = ReportText.field(stateDirectory, limit: 1024)
        guard FilePaths.exists(path) else { return "No background sessions in \(directory) (no journal yet).\n" }
        var journal = try openForReading(path)
        if try !journal.hasCurrentSchema(), let lock = try? StateDirectoryLock.acquire(directory: stateDirectory) {
            journal.close()
            (try? SessionJournal(path: path, readOnly: false))?.close()  // migrates (or, read-only files, lists slowly)
            lock.release()
            journal = try openForReading(path)
        }
        defer { journal.close() }
        let totals = try journal.totals()
        guard totals.tasks > 0 || totals.events > 0 else { return "No background sessions in \(directory).\n" }
        var out = "Background sessions in \(directory)\n"
        out += "\(plural(totals.sessions, "session")), \(plural(totals.tasks, "task")) (\(totals.running) in flight), "
            + "\(plural(totals.events, "pending event"))\n"
        let keys = try journal.sessionKeys(limit: maxSessions)
        for key in keys {
            out += "\nsession \(ReportText.field(SessionJournal.displayText(key), limit: maxFieldLength))\n"
            let counts = try journal.taskCounts(session: key)
            var listed = 0
            for state in ["running", "cancelled", "finished"] where listed < maxListed {
                for task in try journal.tasks(session: key, state: state, limit: maxListed - listed) {
                    out += line(task)
                    listed += 1
                }
            }
            let total = counts.values.reduce(0) { $0.addingReportingOverflow($1).partialValue }
            if total > listed {
                let states = counts.sorted { $0.key < $1.key }
                    .map { "\($0.value) \($0.key == "running" ? "in flight" : ReportText.field($0.key, limit: 20))" }
                out += "  … and \(plural(total - listed, "more task")) (of \(total): \(states.joined(separator: ", ")))\n"
            }
            let eventCount = try journal.eventCount(session: key)
            if eventCount == 0 {
                out += "  no pending events\n"
            } else {
                out += "  pending events: \(eventCount)\n"
                let events = try journal.events(session: key, limit: maxListed)
                for event in events {
                    let again = event.deliveryCount > 0 ? " (delivered \(event.deliveryCount)x, not acknowledged)" : ""
                    out += "    event \(event.eventID): task \(event.taskIdentifier) "
                        + "\(ReportText.field(event.summary, limit: maxFieldLength)), \(iso8601(event.recorded))\(again)\n"
                }
                if eventCount > events.count { out += "    … and \(plural(eventCount - events.count, "more event"))\n" }
            }
        }
        if totals.sessions > keys.count { out += "\n… and \(plural(totals.sessions - keys.count, "more session"))\n" }
        return out
    }

    private static func openForReading(_ path: String) throws -> SessionJournal {
        do {
            return try SessionJournal(path: path, readOnly: true)
        } catch {
            if error.isNotADatabase { throw SessionsReportError.notADatabase(path: path, message: error.message) }
            throw error
        }
    }

    /// The journal opened for writing; one that is not a database is moved aside first.
    private static func openForPurging(_ path: String) throws -> (SessionJournal, String?) {
        let message: String
        do {
            return (try SessionJournal(path: path, readOnly: false), nil)
        } catch {
            guard error.isNotADatabase else { throw error }
            message = error.message
        }
        let moved = try SessionJournal.moveAside(path: path, now: Date())
        let notice = "The journal \(ReportText.field(path, limit: 1024)) was not a database (\(ReportText.field(message))): "
            + "moved it aside to \(ReportText.field(moved, limit: 1024)).\n"
        return (try SessionJournal(path: path, readOnly: false), notice)
    }

    private static func line(_ task: JournaledTask) -> String {
        let state = task.state == .running ? "in flight" : task.state.rawValue
        let description = task.taskDescription.map { " \"\(ReportText.field($0, limit: maxFieldLength))\"" } ?? ""
        var out = "  task \(task.taskIdentifier)\(description): \(state), \(plural(task.attempts, "attempt")), "
            + "\(ReportText.field(task.url, limit: maxFieldLength))\n"
        if let error = task.lastError, task.state == .running {
            out += "    last error: \(ReportText.field(error, limit: maxFieldLength))\n"
        }
        return out
    }

    private static func plural(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

    /// Removes every task, event and kept file. A journal that is not a database is moved
    /// aside first (and a new one started). Throws `SessionsReportError.locked` when a running
    /// host holds the state directory, `StateDirectoryError` for a directory another user
    /// owns, or a file/SQLite error.
    ///
    /// Files: in each real directory under `<state>/sessions/`, the regular files with names
    /// of ours (`task-N`, `delivered-task-N`, `.task-N.XXXXXX`) — also those of a journal moved
    /// aside, which no journal knows any more; other files and symbolic links stay. Empty
    /// session directories are removed.
    public static func purge(stateDirectory: String) throws -> String {
        let directory = ReportText.field(stateDirectory, limit: 1024)
        guard FilePaths.exists(stateDirectory) else { return "Nothing to purge in \(directory).\n" }
        try StateDirectory.prepare(stateDirectory)
        guard let lock = try StateDirectoryLock.acquire(directory: stateDirectory) else {
            throw SessionsReportError.locked(stateDirectory)
        }
        defer { lock.release() }
        let path = BackgroundSessionManager.journalPath(stateDirectory: stateDirectory)
        var out = ""
        var counts = (tasks: 0, events: 0)
        if FilePaths.exists(path) {
            let (journal, notice) = try openForPurging(path)
            defer { journal.close() }
            out += notice ?? ""
            counts = try journal.purge()
        }
        let files = SessionFiles.sweep(stateDirectory: stateDirectory) { _, _, _ in true }
        SessionFiles.removeEmptyDirectories(stateDirectory: stateDirectory)
        if out.isEmpty && !FilePaths.exists(path) && files == 0 { return "Nothing to purge in \(directory).\n" }
        return out + "Purged \(plural(counts.tasks, "task")), \(plural(counts.events, "event")) and \(plural(files, "file")) in \(directory).\n"
    }

    /// `PRAGMA integrity_check` of the journal, read-only ("ok" when sound).
    public static func integrityCheck(stateDirectory: String) throws -> String {
        let journal = try SessionJournal(path: BackgroundSessionManager.journalPath(stateDirectory: stateDirectory), readOnly: true)
        defer { journal.close() }
        return try journal.integrityCheck()
    }

    /// `2026-11-30T19:25:00Z`; "?" for a date gmtime cannot represent.
    static func iso8601(_ date: Date) -> String {
        guard let parts = utc(date) else { return "?" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// `20261130T192500Z`, for file names; "unknown-time" for a date gmtime cannot represent.
    static func compactTimestamp(_ date: Date) -> String {
        guard let parts = utc(date) else { return "unknown-time" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    private static func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }

    private static func utc(_ date: Date) -> tm? {
        guard let seconds = Int(exactly: date.timeIntervalSince1970.rounded(.down)) else { return nil }
        var t = time_t(seconds)
        var parts = tm()
        guard gmtime_r(&t, &parts) != nil, parts.tm_year < Int32.max - 1900 else { return nil }
        return parts
    }
}
