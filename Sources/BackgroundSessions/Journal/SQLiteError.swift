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
}
