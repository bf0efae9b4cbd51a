import CSQLite

/// One SQLite connection: open, run statements with bound values, read rows, transactions.
///
/// Not thread-safe: the owner serialises every call (the journal holds it under its lock).
/// Every failure throws `SQLiteError` with SQLite's message.
final class SQLiteDatabase {
    /// A bindable / readable value.
    enum Value: Equatable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])
    }

    private var handle: OpaquePointer?

    /// Opens `path`; `readOnly` never creates or writes the file.
    init(path: String, readOnly: Bool) throws(SQLiteError) {
        let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        var db: OpaquePointer?
        let rc = sqlite3_open_v2(path, &db, flags | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close(db)
            throw SQLiteError(code: rc, message: "\(message) (\(path))")
        }
        handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, 5000)
    }

    deinit { close() }

    /// Closes the connection; later calls fail.
    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs one or more statements without parameters.
    func execute(_ sql: String) throws(SQLiteError) {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed") }
        var error: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &error)
        if rc != SQLITE_OK {
            let message = error.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(error)
            throw SQLiteError(code: rc, message: message)
        }
    }

    /// Runs one statement with `values` bound to its `?` parameters, returning every row.
    @discardableResult
    func query(_ sql: String, _ values: [Value] = []) throws(SQLiteError) -> [[Value]] {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed") }
        var statement: OpaquePointer?
        var rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else { throw lastError(rc) }
        defer { sqlite3_finalize(statement) }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            switch value {
            case .null: rc = sqlite3_bind_null(statement, index)
            case .integer(let i): rc = sqlite3_bind_int64(statement, index, i)
            case .real(let d): rc = sqlite3_bind_double(statement, index, d)
            case .text(let s): rc = sqlite3_bind_text(statement, index, s, -1, wh_sqlite_transient())
            case .blob(let b):
                rc = b.withUnsafeBytes { sqlite3_bind_blob(statement, index, $0.baseAddress, Int32(clamping: $0.count), wh_sqlite_transient()) }
            }
            guard rc == SQLITE_OK else { throw lastError(rc) }
        }
        var rows: [[Value]] = []
        while true {
            rc = sqlite3_step(statement)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW else { throw lastError(rc) }
            let count = sqlite3_column_count(statement)
            var row: [Value] = []
            row.reserveCapacity(Int(count))
            for column in 0..<count {
                switch sqlite3_column_type(statement, column) {
                case SQLITE_INTEGER: row.append(.integer(sqlite3_column_int64(statement, column)))
                case SQLITE_FLOAT: row.append(.real(sqlite3_column_double(statement, column)))
                case SQLITE_NULL: row.append(.null)
                case SQLITE_BLOB: row.append(.blob(bytes(statement, column, text: false)))
                default:
                    // By length, not up to a NUL; invalid UTF-8 is repaired.
                    row.append(.text(String(decoding: bytes(statement, column, text: true), as: UTF8.self)))
                }
            }
            rows.append(row)
        }
        return rows
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back if it throws.
    func transaction<T>(_ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// A column's bytes: `sqlite3_column_text`/`_blob` first, then `_bytes` (SQLite's order).
    private func bytes(_ statement: OpaquePointer, _ column: Int32, text: Bool) -> [UInt8] {
        let pointer = text ? sqlite3_column_text(statement, column).map(UnsafeRawPointer.init) : sqlite3_column_blob(statement, column)
        let count = Int(sqlite3_column_bytes(statement, column))
        guard let pointer, count > 0 else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Calls `onCommit` with the WAL's frame count after each commit that wrote frames
    /// (`sqlite3_wal_hook`). Registering it turns SQLite's automatic checkpoints off (they are
    /// that hook): the owner checkpoints with `checkpoint()`. `onCommit` must outlive the connection.
    func observeCommits(_ onCommit: WALCommits) {
        guard let handle else { return }
        sqlite3_wal_hook(handle, { context, _, _, frames in
            if let context { Unmanaged<WALCommits>.fromOpaque(context).takeUnretainedValue().frames = Int(frames) }
            return SQLITE_OK
        }, Unmanaged.passUnretained(onCommit).toOpaque())
    }

    /// A passive checkpoint (copies what it can of the WAL into the database, waits for no
    /// reader or writer; fsyncs the WAL, then the database). Returns the WAL's frames and how
    /// many of them are now in the database.
    func checkpoint() throws(SQLiteError) -> (log: Int, copied: Int) {
        guard let handle else { throw SQLiteError(code: SQLITE_MISUSE, message: "database is closed") }
        var log: Int32 = 0, copied: Int32 = 0
        let rc = sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &log, &copied)
        guard rc == SQLITE_OK else { throw lastError(rc) }
        return (Int(log), Int(copied))
    }

    /// The rowid of the last inserted row.
    var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    private func lastError(_ rc: Int32) -> SQLiteError {
        SQLiteError(code: rc, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "database is closed")
    }
}

/// The WAL's frame count after the last commit of a connection (`SQLiteDatabase.observeCommits`).
/// Used by the connection's owner only, under its serialisation.
final class WALCommits {
    /// -1: no commit since this was registered (or since a checkpoint copied every frame).
    var frames = -1
}

/// Reading values of a journal that may have been edited by hand (or by a hostile program):
/// a column can hold any type and any value, so nothing here traps.
extension SQLiteDatabase.Value {
    /// An integer, or a REAL with an integral part that fits in `Int64` (truncated); nil for
    /// anything else (NaN, ±inf, out of range, text, blob, null).
    var int: Int64? {
        switch self {
        case .integer(let i): i
        case .real(let d): Int64(exactly: d.rounded(.towardZero))
        default: nil
        }
    }

    /// A finite number; nil for ±inf (SQLite stores NaN as NULL), text, blob, null.
    var double: Double? {
        switch self {
        case .integer(let i): Double(i)
        case .real(let d): d.isFinite ? d : nil
        default: nil
        }
    }

    var string: String? {
        if case .text(let s) = self { return s }
        return nil
    }

    static func optional(_ s: String?) -> Self { s.map { .text($0) } ?? .null }
    static func optional(_ i: Int?) -> Self { i.map { .integer(Int64($0)) } ?? .null }
}
