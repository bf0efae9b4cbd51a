import TerminalUI

/// The panels of a frame, found from their borders, and the largest blank rectangle inside
/// each: what DESIGN.md §9's "no holes" asks of the views ("no blank rectangle inside a panel
/// covers more than a third of its inside").
///
/// Works on a grid of cells (one string per column, `""` for the right half of a wide
/// character), so the same check reads a headless `CellBuffer` and a screen captured from
/// tmux (the end-to-end tests' `ScreenGrid.rows`). A panel is a box: `┌` (or `+` in ASCII)
/// with `┐`/`+` to its right on the same row, `│`/`|` down both sides to `└`/`+`. Only the
/// borders are read; nothing of the dashboard's own layout is asked.
///
/// ```swift
/// let areas = PanelBlankAreas(dashboard.render())
/// for panel in areas.panels where panel.blankFraction > 1.0 / 3 { … }
/// ```
public struct PanelBlankAreas: Sendable {
    /// A rectangle of cells.
    public struct Area: Sendable, Equatable, CustomStringConvertible {
        public var x, y, width, height: Int
        public var cells: Int { width * height }
        public var description: String { "\(width)x\(height)@\(x),\(y)" }
    }

    /// One panel: its box (borders included), its title as the top border shows it, its
    /// inside and the largest blank rectangle there.
    public struct Panel: Sendable, CustomStringConvertible {
        public var box: Area
        public var title: String
        public var inside: Area
        public var largestBlank: Area
        /// The largest blank rectangle's share of the inside (0 for an empty inside).
        public var blankFraction: Double {
            inside.cells == 0 ? 0 : Double(largestBlank.cells) / Double(inside.cells)
        }
        public var description: String {
            "'\(title)' box \(box): blank \(largestBlank) = \(largestBlank.cells) of \(inside.cells) cells "
                + "(\(Int((blankFraction * 100).rounded()))%)"
        }
    }

    public let panels: [Panel]
    /// The cells read, for `rows(of:)`.
    private let grid: [[String]]

    /// The panels of a rendered frame.
    public init(_ buffer: CellBuffer) {
        var grid: [[String]] = []
        for y in 0..<buffer.height {
            grid.append((0..<buffer.width).map { x in buffer[x, y].grapheme })
        }
        self.init(grid: grid)
    }

    /// The panels of a grid of cells, rows top to bottom (rows may be shorter than others:
    /// missing cells are blank, as a capture trims trailing spaces).
    public init(grid: [[String]]) {
        func cell(_ x: Int, _ y: Int) -> String {
            guard grid.indices.contains(y), grid[y].indices.contains(x) else { return " " }
            return grid[y][x]
        }
        let corners: Set<String> = ["┌", "+"]
        var found: [Panel] = []
        for (top, row) in grid.enumerated() {
            for left in row.indices where corners.contains(row[left]) {
                let closing = row[left] == "┌" ? "┐" : "+"
                let vertical = row[left] == "┌" ? "│" : "|"
                let bottomLeft = row[left] == "┌" ? "└" : "+"
                // An ASCII '+' is also a box's right corner: a box starts where a border runs right.
                guard left + 1 < row.count, row[left] == "┌" || row[left + 1] != " ",
                      let right = row[(left + 1)...].firstIndex(of: closing), right > left + 1 else { continue }
                var bottom: Int?
                var y = top + 1
                while y < grid.count {
                    if cell(left, y) == bottomLeft { bottom = y; break }
                    guard cell(left, y) == vertical, cell(right, y) == vertical else { break }
                    y += 1
                }
                guard let bottom, bottom > top + 1 else { continue }
                let title = row[(left + 1)..<right].joined()
                    .trimmingBorder(["─", "-", " "])
                let inside = Area(x: left + 1, y: top + 1, width: right - left - 1, height: bottom - top - 1)
                found.append(Panel(box: Area(x: left, y: top, width: right - left + 1, height: bottom - top + 1),
                                   title: title, inside: inside, largestBlank: Self.largestBlank(in: inside, cell: cell)))
            }
        }
        panels = found
        self.grid = grid
    }

    /// The inside of `panel` as text, one string per row (trailing blanks kept).
    public func rows(of panel: Panel) -> [String] {
        (panel.inside.y..<(panel.inside.y + panel.inside.height)).map { y in
            (panel.inside.x..<(panel.inside.x + panel.inside.width)).map { x in
                grid.indices.contains(y) && grid[y].indices.contains(x) ? grid[y][x] : " "
            }.joined()
        }
    }

    /// The first panel drawing a big clock face (rows of `█`), its rows joined: a clock that
    /// ticks changes it, wherever its panel is and however large its digits.
    public static func bigClockFace(_ grid: [[String]]) -> String? {
        let areas = PanelBlankAreas(grid: grid)
        return areas.panels.lazy.map { areas.rows(of: $0) }.first { $0.contains { $0.contains("███") } }?.joined(separator: "\n")
    }

    /// The largest blank rectangle of a whole buffer (a view drawn alone, without a box).
    public static func largestBlank(in buffer: CellBuffer) -> Area {
        largestBlank(in: Area(x: 0, y: 0, width: buffer.width, height: buffer.height)) { x, y in buffer[x, y].grapheme }
    }

    /// The largest blank rectangle's share of a whole buffer (0 for an empty one).
    public static func blankFraction(of buffer: CellBuffer) -> Double {
        let cells = buffer.width * buffer.height
        return cells == 0 ? 0 : Double(largestBlank(in: buffer).cells) / Double(cells)
    }

    /// The panels whose largest blank rectangle covers more than `fraction` of their inside,
    /// leaving out those titled in `except` (a text shorter than its panel, say).
    public func holes(over fraction: Double = 1.0 / 3, except: Set<String> = []) -> [Panel] {
        panels.filter { $0.blankFraction > fraction && !except.contains($0.title) }
    }

    /// The largest rectangle of blank cells (a space; the right half of a wide character is
    /// not blank) in `area`: the largest rectangle under a histogram, row by row, O(cells).
    static func largestBlank(in area: Area, cell: (Int, Int) -> String) -> Area {
        var heights = Array(repeating: 0, count: area.width)
        var best = Area(x: area.x, y: area.y, width: 0, height: 0)
        for y in area.y..<(area.y + area.height) {
            for i in 0..<area.width {
                heights[i] = cell(area.x + i, y) == " " ? heights[i] + 1 : 0
            }
            // A stack of column indices with increasing heights.
            var stack: [Int] = []
            for i in 0...area.width {
                let height = i < area.width ? heights[i] : 0
                while let last = stack.last, heights[last] >= height {
                    stack.removeLast()
                    let start = (stack.last ?? -1) + 1
                    let width = i - start
                    if width * heights[last] > best.cells {
                        best = Area(x: area.x + start, y: y - heights[last] + 1, width: width, height: heights[last])
                    }
                }
                stack.append(i)
            }
        }
        return best
    }
}

extension String {
    /// The string without `characters` at either end.
    fileprivate func trimmingBorder(_ characters: Set<Character>) -> String {
        var text = Substring(self)
        while let first = text.first, characters.contains(first) { text = text.dropFirst() }
        while let last = text.last, characters.contains(last) { text = text.dropLast() }
        return String(text)
    }
}
