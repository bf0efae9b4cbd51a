/// A column of a `Table`: header, width rule and alignment.
public struct TableColumn: Hashable, Sendable {
    /// How wide a column is.
    public enum Width: Hashable, Sendable {
        /// Exactly this many columns (fewer when the table runs out of room).
        case fixed(Int)
        /// An equal share of what the fixed columns leave.
        case flexible
    }

    public var title: String
    public var width: Width
    public var alignment: TextAlignment

    public init(_ title: String = "", width: Width = .flexible, alignment: TextAlignment = .left) {
        self.title = title
        self.width = width
        self.alignment = alignment
    }
}
