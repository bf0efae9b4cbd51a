/// A terminal's size in cells.
public struct TerminalSize: Hashable, Sendable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = max(0, columns)
        self.rows = max(0, rows)
    }

    /// Parses "100x30" (columns x rows); nil when malformed or not positive.
    public init?(parsing text: String) {
        let parts = text.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let c = Int(parts[0]), let r = Int(parts[1]), c > 0, r > 0 else { return nil }
        self.init(columns: c, rows: r)
    }

    public var description: String { "\(columns)x\(rows)" }
}
