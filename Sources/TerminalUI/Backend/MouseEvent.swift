/// A mouse report, at a cell of the screen (0-based column and row).
public struct MouseEvent: Hashable, Sendable {
    public enum Kind: Hashable, Sendable {
        /// The left button went down (a click; two on one panel in quick succession: a double click).
        case press
        case wheelUp
        case wheelDown
    }

    public var kind: Kind
    public var column: Int
    public var row: Int

    public init(_ kind: Kind, column: Int, row: Int) {
        self.kind = kind
        self.column = column
        self.row = row
    }
}
