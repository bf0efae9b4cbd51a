import FoundationEssentials
import Glibc

/// The text of `widgethost sessions` and `widgethost sessions --purge`.
///
/// `text` only reads: it opens the journal read-only and works while a running host holds the
/// state directory's lock. `purge` takes the lock and fails when a host holds it.
public enum SessionsReport {
    /// Lists each session: its tasks (state, attempts, URL, last error) and the events waiting
    /// to be delivered. Throws `SQLiteError` when the journal cannot be read.
    public static func text(stateDirectory: String) throws -> String {
        let path = BackgroundSessionManager.journalPath(stateDirectory: stateDirectory)
        guard FilePaths.exists(path) else { return "No background sessions in \(stateDirectory) (no journal yet).\n" }
        let journal = try SessionJournal(path: path, readOnly: true)
        defer { journal.close() }
        let tasks = try journal.tasks()
        let events = try journal.events()
        guard !tasks.isEmpty || !events.isEmpty else { return "No background sessions in \(stateDirectory).\n" }
        var out = "Background sessions in \(stateDirectory)\n"
        let identifiers = Set(tasks.map(\.sessionIdentifier) + events.map(\.sessionIdentifier)).sorted()
        for identifier in identifiers {
            let sessionTasks = tasks.filter { $0.sessionIdentifier == identifier }
            let sessionEvents = events.filter { $0.sessionIdentifier == identifier }
            out += "\nsession \(identifier)\n"
            for task in sessionTasks {
                let state = task.state == .running ? "in flight" : task.state.rawValue
                let description = task.taskDescription.map { " \"\($0)\"" } ?? ""
                out += "  task \(task.taskIdentifier)\(description): \(state), \(task.attempts) attempt\(task.attempts == 1 ? "" : "s"), \(task.url)\n"
                if let error = task.lastError, task.state == .running { out += "    last error: \(error)\n" }
            }
            if sessionEvents.isEmpty {
                out += "  no pending events\n"
            } else {
                out += "  pending events: \(sessionEvents.count)\n"
                for event in sessionEvents {
                    let again = event.deliveryCount > 0 ? " (delivered \(event.deliveryCount)x, not acknowledged)" : ""
                    out += "    event \(event.eventID): task \(event.taskIdentifier) \(event.summary), \(iso8601(event.recorded))\(again)\n"
                }
            }
        }
        return out
    }

    /// Removes every task, event and kept file. Throws `SessionsReportError.locked` when a
    /// running host holds the state directory, or a file/SQLite error.
    public static func purge(stateDirectory: String) throws -> String {
        guard let lock = try StateDirectoryLock.acquire(directory: stateDirectory) else {
            throw SessionsReportError.locked(stateDirectory)
        }
        defer { lock.release() }
        let path = BackgroundSessionManager.journalPath(stateDirectory: stateDirectory)
        guard FilePaths.exists(path) else { return "Nothing to purge in \(stateDirectory).\n" }
        let journal = try SessionJournal(path: path, readOnly: false)
        defer { journal.close() }
        let counts = try journal.purge()
        var files = 0
        let root = FilePaths.join(stateDirectory, "sessions")
        for directory in FilePaths.list(root) {
            let dir = FilePaths.join(root, directory)
            for name in FilePaths.list(dir) where unlink(FilePaths.join(dir, name)) == 0 { files += 1 }
            rmdir(dir)
        }
        return "Purged \(counts.tasks) task\(counts.tasks == 1 ? "" : "s"), \(counts.events) event\(counts.events == 1 ? "" : "s")"
            + " and \(files) file\(files == 1 ? "" : "s") in \(stateDirectory).\n"
    }

    /// `PRAGMA integrity_check` of the journal, read-only ("ok" when sound).
    public static func integrityCheck(stateDirectory: String) throws -> String {
        let journal = try SessionJournal(path: BackgroundSessionManager.journalPath(stateDirectory: stateDirectory), readOnly: true)
        defer { journal.close() }
        return try journal.integrityCheck()
    }

    static func iso8601(_ date: Date) -> String {
        var t = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
