/// A horizontal run of changed cells, produced by `CellBuffer.changes(since:)`.
///
/// `cells[0]` is at (x, y). A run may end on the left half of a wide glyph whose right half
/// did not change; backends draw each non-continuation cell and skip continuation cells.
public struct CellRun: Hashable, Sendable {
    public var x: Int
    public var y: Int
    public var cells: [Cell]

    public init(x: Int, y: Int, cells: [Cell]) {
        self.x = x
        self.y = y
        self.cells = cells
    }
}
