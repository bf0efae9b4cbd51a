#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import JSONTree

/// Where the Live Activities and the history live between runs, in the state directory:
/// `activities.json` (the board, replaced atomically at each change: a host killed at any
/// moment leaves the old board or the new) and `events.jsonl` (one event a line, appended;
/// bounded: past `maximumEvents + compactionSlack` lines it is rewritten to the newest
/// `maximumEvents`). `activity list` and `events` read them with no dashboard running.
///
/// The files are ours (0600 in the private state directory) but read as untrusted: sizes
/// bounded, every record checked (`Activity(json:)`, `HistoryEvent(json:)`), a bad one skipped.
/// Only the dashboard that holds the state directory's lock writes them.
final class ActivityJournal {
    static let maximumEvents = 10_000
    static let compactionSlack = 1_000
    static let maximumBoardBytes = 1 << 20
    static let maximumEventBytes = 16 << 20

    let activitiesPath: String
    let eventsPath: String
    /// Lines in the events file (counted at the first append).
    private var eventLines: Int?

    init(stateDirectory: String) {
        let directory = stateDirectory.hasSuffix("/") ? String(stateDirectory.dropLast()) : stateDirectory
        activitiesPath = directory + "/activities.json"
        eventsPath = directory + "/events.jsonl"
    }

    // MARK: Reading

    /// The board as last written; empty when there is none (or it cannot be read).
    func activities() -> [Activity] {
        guard let bytes = Self.read(activitiesPath, limit: Self.maximumBoardBytes),
              case .object(let object)? = try? JSONParser(maximumBytes: Self.maximumBoardBytes, maximumDepth: 8).parse(bytes),
              case .array(let records)? = object["activities"] else { return [] }
        return records.prefix(ActivityBoard.maximumCount).compactMap(Activity.init(json:))
    }

    /// The newest `limit` events, oldest first.
    func events(limit: Int = maximumEvents) -> [HistoryEvent] {
        guard let bytes = Self.read(eventsPath, limit: Self.maximumEventBytes, tail: true) else { return [] }
        // A line not ended by a line feed is being written: left for the next read.
        let complete = bytes.lastIndex(of: 10).map { bytes[...$0] } ?? []
        let parser = JSONParser(maximumBytes: 64 << 10, maximumDepth: 4)
        return complete.split(separator: 10).suffix(limit).compactMap { line in
            (try? parser.parse(Array(line))).flatMap(HistoryEvent.init(json:))
        }
    }

    // MARK: Writing (the dashboard)

    /// Replaces the board; the error names the step that failed.
    func save(_ activities: [Activity]) -> String? {
        Self.replace(activitiesPath, with: JSONValue.object(JSONObject(members: [
            ("activities", .array(activities.map(\.journalJSON))),
        ])).jsonText + "\n")
    }

    /// Writes `text` to a new file renamed over `path` (a reader sees the old file or the new).
    private static func replace(_ path: String, with text: String) -> String? {
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return "cannot write \(temporary): \(String(cString: strerror(errno)))" }
        if let failure = FilePaths.writeAll(fd, Array(text.utf8)) {
            close(fd)
            unlink(temporary)
            return "cannot write \(temporary): \(String(cString: strerror(failure)))"
        }
        if let failure = FilePaths.commit(fd: fd, temporary: temporary, to: path, syncData: false) {
            return "cannot \(failure.operation) \(path): \(String(cString: strerror(failure.errno)))"
        }
        return nil
    }

    /// Appends `events` (one write: a reader never sees half of one, a killed host at most
    /// loses a line being written); compacts the file past its bound.
    func append(_ events: [HistoryEvent]) -> String? {
        guard !events.isEmpty else { return nil }
        var text = events.map { $0.journalJSON.jsonText + "\n" }.joined()
        if eventLines == nil {
            // Counted, not parsed: this runs on the loop, and every line counts toward compaction.
            eventLines = Self.read(eventsPath, limit: Self.maximumEventBytes, tail: true)?.reduce(0) { $0 + ($1 == 10 ? 1 : 0) } ?? 0
            // A line a killed host left unfinished is ended first, not continued.
            if let last = Self.read(eventsPath, limit: 1, tail: true)?.last, last != 10 { text = "\n" + text }
        }
        let fd = open(eventsPath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return "cannot write \(eventsPath): \(String(cString: strerror(errno)))" }
        let failure = FilePaths.writeAll(fd, Array(text.utf8))
        close(fd)
        if let failure { return "cannot write \(eventsPath): \(String(cString: strerror(failure)))" }
        eventLines = (eventLines ?? 0) + events.count
        if let lines = eventLines, lines > Self.maximumEvents + Self.compactionSlack { return compact() }
        return nil
    }

    /// Rewrites the events file to its newest `maximumEvents`.
    private func compact() -> String? {
        let kept = events()
        if let failure = Self.replace(eventsPath, with: kept.map { $0.journalJSON.jsonText + "\n" }.joined()) { return failure }
        eventLines = kept.count
        return nil
    }

    /// A regular file's bytes, at most `limit` (with `tail`, its last `limit`); nil when
    /// missing or not a regular file (a link is not followed).
    static func read(_ path: String, limit: Int, tail: Bool = false) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        let size = Int(info.st_size)
        if tail, size > limit { lseek(fd, off_t(size - limit), SEEK_SET) } else if size > limit { return nil }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while bytes.count < limit {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, min($0.count, limit - bytes.count)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return bytes
    }
}
