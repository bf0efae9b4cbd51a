/// A terminal's size in cells.
public struct TerminalSize: Hashable, Sendable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int

    /// Sizes accepted from users (`snapshot --size`), per dimension.
    public static let bounds = 1...1000

    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
    }

    /// Parses `COLSxROWS` (`100x30`); nil when malformed or outside `bounds`.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2,
              parts.allSatisfy({ !$0.isEmpty && $0.count <= 4 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let columns = Int(parts[0]), let rows = Int(parts[1]),
              Self.bounds.contains(columns), Self.bounds.contains(rows) else { return nil }
        self.init(columns: columns, rows: rows)
    }

    public var description: String { "\(columns)x\(rows)" }
}
