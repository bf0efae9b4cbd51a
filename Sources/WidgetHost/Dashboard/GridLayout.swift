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
/// per cell high) while leaving few holes; rows share the height. A family wider than the grid
/// is narrowed to the grid's width. Families are minimums: a unit the flow leaves empty (a row
/// that ends early, a last row not full) goes to a neighbouring panel that can grow into it
/// (`fillHoles`), so every cell of the area belongs to exactly one panel. Unit sizes are
/// distributed exactly, so panels tile the area with no gaps or overlaps.
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

    /// The rectangles of `families` in `area`, in the same order, tiling it: every cell belongs
    /// to exactly one. When not all of them fit (too little room, or no tiling without a hole),
    /// the rectangles of the longest first part of them that does — fewer than asked: the
    /// host counts the rest as not shown. Nil when not even the first fits one minimum unit
    /// (the host then shows a "terminal too small" notice).
    public func frames(for families: [WidgetFamily], in area: Rect) -> [Rect]? {
        guard !families.isEmpty else { return [] }
        for count in stride(from: families.count, through: 1, by: -1) {
            if let frames = tiling(Array(families.prefix(count)), in: area) { return frames }
        }
        return nil
    }

    /// The rectangles of all of `families` tiling `area`, or nil.
    private func tiling(_ families: [WidgetFamily], in area: Rect) -> [Rect]? {
        let maxColumns = min(8, area.width / minimumUnitWidth)
        guard maxColumns >= 1 else { return nil }
        var best: (columns: Int, rows: Int, placements: [Placement], score: Double)?
        for columns in 1...maxColumns {
            let (placements, rows) = Self.place(families, columns: columns)
            let shelves = Self.shelves(families, columns: columns)
            // The dense flow, its holes given to neighbours; and shelves, which never leave one
            // (for the rare flow whose hole every neighbour spans past, a pinwheel).
            for (candidate, candidateRows) in [(Self.fillHoles(placements, columns: columns, rows: rows), rows), shelves] {
                guard area.height / candidateRows >= minimumUnitHeight else { continue }
                let total = columns * candidateRows
                let asked = families.reduce(0) { $0 + min($1.gridUnits.columns, columns) * $1.gridUnits.rows }
                let grown = Double(total - asked) / Double(total)
                let left = total - candidate.reduce(0) { $0 + $1.columns * $1.rows }
                // Units should look like a widget: about two and a half cells wide per cell high
                // (a cell is about twice as high as wide). Growth counts double: a panel grown
                // into a hole is not the shape its family asked for. A hole left is no tiling.
                let aspect = (Double(area.width) / Double(columns)) / (Double(area.height) / Double(candidateRows))
                let score = 2 * grown + abs(Glibc.log(aspect / Self.idealAspect))
                if left == 0, best == nil || score < best!.score - 1e-9 {
                    best = (columns, candidateRows, candidate, score)
                }
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

    /// The rectangles of the panels placed on an explicit grid (`areas`: each panel's area
    /// name, in order), the grid's column and row weights sharing `area` out; every cell
    /// belongs to one area (the config validator sees to it). Nil when a panel would be smaller
    /// than a box with a line inside (`minimumGridCell`): the host shows "terminal too small".
    public func frames(on grid: GridTemplate, areas: [String], in area: Rect) -> [Rect]? {
        let xs = Self.edges(total: area.width, weights: grid.columnWeights).map { $0 + area.x }
        let ys = Self.edges(total: area.height, weights: grid.rowWeights).map { $0 + area.y }
        var frames: [Rect] = []
        for name in areas {
            guard let place = grid.area(named: name) else { return nil }
            let frame = Rect(x: xs[place.column], y: ys[place.row], width: xs[place.column + place.columns] - xs[place.column],
                             height: ys[place.row + place.rows] - ys[place.row])
            guard frame.width >= Self.minimumGridCell.columns, frame.height >= Self.minimumGridCell.rows else { return nil }
            frames.append(frame)
        }
        return frames
    }

    /// The smallest panel an explicit grid may give: a box, its title and a line inside.
    static let minimumGridCell = TerminalSize(columns: 8, rows: 3)

    /// `weights.count + 1` cut points from 0 to `total`, each part in proportion to its weight
    /// (the remainder to the parts with the largest fractions, then the first).
    static func edges(total: Int, weights: [Int]) -> [Int] {
        let sum = max(1, weights.reduce(0, +))
        var sizes = weights.map { total * $0 / sum }
        let order = weights.indices.sorted { (total * weights[$0]) % sum > (total * weights[$1]) % sum }
        for i in order.prefix(total - sizes.reduce(0, +)) { sizes[i] += 1 }
        var edges = [0]
        for size in sizes { edges.append(edges[edges.count - 1] + size) }
        return edges
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

    /// Rows of panels in order ("shelves"): a panel that does not fit the row's rest starts the
    /// next row, the row's last panel widens to its end, and every panel of a row is as tall as
    /// the row's tallest. Never a hole; the fallback when the flow leaves one no panel can take.
    static func shelves(_ families: [WidgetFamily], columns: Int) -> ([Placement], Int) {
        var placements: [Placement] = []
        var shelfStart = 0, row = 0, x = 0
        func closeShelf() {
            guard shelfStart < placements.count else { return }
            let height = placements[shelfStart...].map(\.rows).max() ?? 1
            placements[placements.count - 1].columns = columns - placements[placements.count - 1].column
            for i in shelfStart..<placements.count { placements[i].rows = height }
            row += height
            shelfStart = placements.count
            x = 0
        }
        for family in families {
            let w = min(family.gridUnits.columns, columns)
            if x + w > columns { closeShelf() }
            placements.append(Placement(column: x, row: row, columns: w, rows: family.gridUnits.rows))
            x += w
        }
        closeShelf()
        return (placements, max(row, 1))
    }

    /// Grows panels into the units the flow left empty: each panel in turn takes a free strip
    /// beside it as tall (or as wide) as itself — right, then down, left, up — until no panel
    /// can grow. A hole is left only when every neighbour spans past it on both sides.
    static func fillHoles(_ placements: [Placement], columns: Int, rows: Int) -> [Placement] {
        var placements = placements
        var owner = Array(repeating: Array(repeating: -1, count: columns), count: rows)
        for (i, p) in placements.enumerated() {
            for y in p.row..<(p.row + p.rows) { for x in p.column..<(p.column + p.columns) { owner[y][x] = i } }
        }
        func free(_ xs: Range<Int>, _ ys: Range<Int>) -> Bool {
            guard xs.lowerBound >= 0, xs.upperBound <= columns, ys.lowerBound >= 0, ys.upperBound <= rows else { return false }
            return ys.allSatisfy { y in xs.allSatisfy { x in owner[y][x] < 0 } }
        }
        var grew = true
        while grew {
            grew = false
            for i in placements.indices {
                let p = placements[i]
                let columnsSpan = p.column..<(p.column + p.columns), rowsSpan = p.row..<(p.row + p.rows)
                var next = p
                if free(p.column + p.columns..<(p.column + p.columns + 1), rowsSpan) {
                    next.columns += 1
                } else if free(columnsSpan, p.row + p.rows..<(p.row + p.rows + 1)) {
                    next.rows += 1
                } else if free(p.column - 1..<p.column, rowsSpan) {
                    next.column -= 1
                    next.columns += 1
                } else if free(columnsSpan, p.row - 1..<p.row) {
                    next.row -= 1
                    next.rows += 1
                } else {
                    continue
                }
                for y in next.row..<(next.row + next.rows) { for x in next.column..<(next.column + next.columns) { owner[y][x] = i } }
                placements[i] = next
                grew = true
            }
        }
        return placements
    }

    /// `parts + 1` cut points from 0 to `total`, the remainder spread over the first parts.
    static func edges(total: Int, parts: Int) -> [Int] {
        let base = total / parts, extra = total % parts
        var edges = [0]
        for i in 0..<parts { edges.append(edges[i] + base + (i < extra ? 1 : 0)) }
        return edges
    }
}
