@testable import BackgroundSessions
import FoundationEssentials
import Glibc
import WidgetTestSupport

/// The journal of `state` opened directly, as someone editing it by hand would.
func editJournal(_ state: String, _ body: (SQLiteDatabase) throws -> Void) throws {
    let db = try SQLiteDatabase(path: BackgroundSessionManager.journalPath(stateDirectory: state), readOnly: false)
    defer { db.close() }
    try body(db)
}

/// Makes the journal of `state` refuse (or take again) the deletion of events, as a full disk
/// or a read-only file system makes an acknowledgement fail.
func refuseAcknowledgements(_ state: String, _ refuse: Bool) throws {
    try editJournal(state) { db in
        try db.execute(refuse ? "CREATE TRIGGER refuse BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'disk full'); END"
                              : "DROP TRIGGER refuse")
    }
}

/// A fresh state directory with a journal (a manager opened, `setup` run, closed); on tmpfs
/// when `fast` and /dev/shm is there (the journal fsyncs every commit: on a disk a fuzz run of
/// a few dozen journals would take seconds).
func makeJournal(fast: Bool = false, _ setup: (BackgroundSessionManager, FakeTransport) throws -> Void = { _, _ in }) throws -> String {
    var template = Array("/dev/shm/bgs-fuzz-XXXXXX".utf8CString)
    let shm = fast ? template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } } : nil
    let state = shm.map { $0 + "/state" } ?? scratchStatePath()
    let transport = FakeTransport()
    let manager = try BackgroundSessionManager.open(stateDirectory: state, transport: transport)
    defer { manager.close() }
    try setup(manager, transport)
    return state
}

/// Inserts a task row with the given columns (the others take the schema's defaults).
func insertTask(_ db: SQLiteDatabase, id: Int64? = nil, session: String, url: String = "http://127.0.0.1:9/x",
                state: String = "running", description: String? = nil, lastError: String? = nil) throws(SQLiteError) {
    try db.query("""
        INSERT INTO tasks(task_id, session, description, url, state, last_error, created, updated)
        VALUES (?, ?, ?, ?, ?, ?, 1800000000, 1800000000)
        """, [id.map { .integer($0) } ?? .null, .text(session), .optional(description), .text(url), .text(state), .optional(lastError)])
}

/// Inserts an event row; `file` is what a hostile journal may claim.
func insertEvent(_ db: SQLiteDatabase, session: String, taskID: Int64, kind: String = "downloaded", file: String? = nil,
                 reason: String? = nil, recorded: Double = 1_800_000_000) throws(SQLiteError) {
    try db.query("""
        INSERT INTO events(session, task_id, url, kind, file, status, byte_count, reason, attempts, recorded)
        VALUES (?, ?, 'http://127.0.0.1:9/x', ?, ?, 200, 3, ?, 1, ?)
        """, [.text(session), .integer(taskID), .text(kind), .optional(file), .optional(reason), .real(recorded)])
}

/// Scalars that would act on a terminal: C0 controls other than LF, DEL, C1 controls, bidi
/// controls, line and paragraph separators.
func terminalControls(in text: String) -> [Unicode.Scalar] {
    text.unicodeScalars.filter { s in
        (s.value < 0x20 && s != "\n") || (0x7F...0x9F).contains(s.value) || [0x061C, 0x200E, 0x200F, 0x2028, 0x2029].contains(s.value)
            || (0x202A...0x202E).contains(s.value) || (0x2066...0x2069).contains(s.value)
    }
}

/// Writes `bytes` to `path` (created 0644, replaced).
func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard fd >= 0 else { return }
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

/// The permission bits of `path` (following a link), or nil.
func mode(_ path: String) -> mode_t? {
    var info = stat()
    return stat(path, &info) == 0 ? info.st_mode & 0o7777 : nil
}

/// Whether `path` exists (without following a final symbolic link).
func exists(_ path: String) -> Bool {
    var info = stat()
    return lstat(path, &info) == 0
}

typealias SeededGenerator = FuzzRandom

/// The fuzz seed: `WIDGETHOST_FUZZ_SEED` when set (to repeat a failure), else `fixed`.
func fuzzSeed(default fixed: UInt64) -> UInt64 {
    guard let text = getenv("WIDGETHOST_FUZZ_SEED").map({ String(cString: $0) }), let seed = UInt64(text) else { return fixed }
    return seed
}
