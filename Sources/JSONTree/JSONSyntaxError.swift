/// A JSON document that could not be parsed, with the position of the problem.
///
/// `line` and `column` are 1-based; the column counts Unicode scalars, so it matches what an
/// editor shows for text without wide characters. `description` reads
/// `line 3, column 14: expected ',' or '}' after an object member`.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public var message: String

    public init(line: Int, column: Int, message: String) {
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String { "line \(line), column \(column): \(message)" }
}
