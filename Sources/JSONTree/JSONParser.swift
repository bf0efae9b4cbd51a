/// A strict JSON parser (RFC 8259) for untrusted input.
///
/// Parses bytes into a `JSONValue` or throws a `JSONSyntaxError` naming the line and column.
/// Strict: no comments, no trailing commas, no duplicate keys, no leading zeros, no NaN,
/// valid UTF-8 only (one leading byte-order mark is skipped). Bounded: documents larger than
/// `maximumBytes` and nesting deeper than `maximumDepth` are rejected before any work is
/// wasted on them, so no input can exhaust the stack or memory.
///
/// ```swift
/// let value = try JSONParser().parse(Array(#"{"panels": []}"#.utf8))
/// ```
public struct JSONParser: Sendable {
    /// Largest accepted document, in bytes (1 MiB by default).
    public var maximumBytes: Int
    /// Deepest accepted nesting of arrays and objects (64 by default).
    public var maximumDepth: Int

    public init(maximumBytes: Int = 1 << 20, maximumDepth: Int = 64) {
        self.maximumBytes = maximumBytes
        self.maximumDepth = maximumDepth
    }

    /// Parses a whole document.
    ///
    /// - Throws: `JSONSyntaxError` for anything that is not exactly one JSON value
    ///   (surrounded by optional whitespace) within the limits.
    public func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        if bytes.count > maximumBytes {
            throw JSONSyntaxError(line: 1, column: 1,
                                  message: "document is \(bytes.count) bytes; the limit is \(maximumBytes)")
        }
        var cursor = JSONCursor(bytes: bytes, maximumDepth: maximumDepth)
        return try cursor.parseDocument()
    }

    /// Parses a document held in a string.
    public func parse(_ text: String) throws(JSONSyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }
}
