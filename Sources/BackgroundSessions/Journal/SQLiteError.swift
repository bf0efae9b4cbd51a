/// A failure reported by SQLite, with its result code and message.
public struct SQLiteError: Error, Sendable, Equatable, CustomStringConvertible {
    /// SQLite's (extended) result code.
    public var code: Int32
    public var message: String

    public init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "SQLite error \(code): \(message)" }

    /// The file is not an SQLite database, or its pages are damaged (`SQLITE_NOTADB`,
    /// `SQLITE_CORRUPT` and their extended codes): no retry will help.
    public var isNotADatabase: Bool { code & 0xFF == 26 || code & 0xFF == 11 }
}
