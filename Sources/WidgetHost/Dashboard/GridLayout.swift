#if canImport(Glibc)
import Glibc
#endif
import TerminalUI
import WidgetCore

/// Places panels on a grid of units by family (small 1×1, medium 2×1, large 2×2,
/// extraLarge 4×2), adapting the number of columns to the terminal.
///
/// Panels are placed in order, each in the first free spot that holds it (dense flow). The
/// layout tries every column count the width allows (units at least `minimumUnitWidth`
/// wide) and keeps the one whose units come closest to a widget's shape (about 2.5 cells wide
/// per cell high) while leaving few holes; rows share the height. A family wider than the grid is narrowed to the grid's width.
/// Unit sizes are distributed exactly, so panels tile the area with no gaps or overlaps.
public struct GridLayout: Sendable, Equatable {
    /// Narrowest unit worth having, in cells.
    public var minimumUnitWidth: Int
    /// Lowest unit worth having, in cells.
    public var minimumUnitHeight: Int

    public init(minimumUnitWidth: Int = 20, minimumUnitHeight: Int = 5) {
        self.minimumUnitWidth = max(1, minimumUnitWidth)
        self.minimumUnitHeight = max(1, minimumUnitHeight)
    }

    /// The unit shape the layout aims for: width / height in cells.
    static let idealAspect = 2.5

    /// One panel's place in units.
    struct Placement: Equatable {
        var column: Int, row: Int, columns: Int, rows: Int
    }

    /// The rectangles of `families` in `area`, in the same order; nil when the area is too
    /// small to give every panel at least one minimum unit (the host then shows a
    /// "terminal too small" notice).
    public func frames(for families: [WidgetFamily], in area: Rect) -> [Rect]? {
        guard !families.isEmpty else { return [] }
        let maxColumns = min(8, area.width / minimumUnitWidth)
        guard maxColumns >= 1 else { return nil }
        var best: (columns: Int, rows: Int, placements: [Placement], score: Double)?
        for columns in 1...maxColumns {
            let (placements, rows) = Self.place(families, columns: columns)
            guard area.height / rows >= minimumUnitHeight else { continue }
            let used = placements.reduce(0) { $0 + $1.columns * $1.rows }
            let holes = Double(columns * rows - used) / Double(columns * rows)
            // Units should look like a widget: about two and a half cells wide per cell high
            // (a cell is about twice as high as wide). Holes count double.
            let aspect = (Double(area.width) / Double(columns)) / (Double(area.height) / Double(rows))
            let score = 2 * holes + abs(Glibc.log(aspect / Self.idealAspect))
            if best == nil || score < best!.score - 1e-9 {
                best = (columns, rows, placements, score)
            }
        }
        guard let best else { return nil }
        let xs = Self.edges(total: area.width, parts: best.columns).map { $0 + area.x }
        let ys = Self.edges(total: area.height, parts: best.rows).map { $0 + area.y }
        return best.placements.map { p in
            Rect(x: xs[p.column], y: ys[p.row],
                 width: xs[p.column + p.columns] - xs[p.column], height: ys[p.row + p.rows] - ys[p.row])
        }
    }

    /// The smallest area that lays out `families`: as wide as `width` allows (at least one
    /// unit), and as high as the rows the widest grid needs.
    public func minimumArea(for families: [WidgetFamily], width: Int) -> (width: Int, height: Int) {
        let columns = max(1, min(8, width / minimumUnitWidth))
        let rows = families.isEmpty ? 1 : Self.place(families, columns: columns).1
        return (max(width, minimumUnitWidth), rows * minimumUnitHeight)
    }

    /// Dense flow placement on a grid `columns` wide; returns placements and rows used.
    static func place(_ families: [WidgetFamily], columns: Int) -> ([Placement], Int) {
        var occupied: [[Bool]] = []
        var placements: [Placement] = []
        func free(_ c: Int, _ r: Int, _ w: Int, _ h: Int) -> Bool {
            for y in r..<(r + h) where y < occupied.count {
                for x in c..<(c + w) where occupied[y][x] { return false }
            }
            return true
        }
        for family in families {
            let w = min(family.gridUnits.columns, columns), h = family.gridUnits.rows
            var row = 0
            search: while true {
                for column in 0...(columns - w) where free(column, row, w, h) {
                    while occupied.count < row + h { occupied.append(Array(repeating: false, count: columns)) }
                    for y in row..<(row + h) { for x in column..<(column + w) { occupied[y][x] = true } }
                    placements.append(Placement(column: column, row: row, columns: w, rows: h))
                    break search
                }
                row += 1
            }
        }
        return (placements, occupied.count)
    }

    /// `parts + 1` cut points from 0 to `total`, the remainder spread over the first parts.
    static func edges(total: Int, parts: Int) -> [Int] {
        let base = total / parts, extra = total % parts
        var edges = [0]
        for i in 0..<parts { edges.append(edges[i] + base + (i < extra ? 1 : 0)) }
        return edges
    }
}
