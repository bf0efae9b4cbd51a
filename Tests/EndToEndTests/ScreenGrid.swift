#if canImport(Glibc)
import Glibc
#endif

/// A captured screen as a grid of cells, columns placed the way the terminal placed them.
///
/// `capture-pane` prints a wide character once and skips the cell it also covers, so a row's
/// string index is not its column. The grid puts each character at its column using glibc
/// `wcwidth` in a C.UTF-8 locale (what tmux and ncurses use on this platform), deliberately
/// not the app's own `DisplayWidth`: a disagreement between the app and the terminal must
/// show up as a misaligned border, not cancel out. The covered cell of a wide character is
/// `""`.
struct ScreenGrid {
    let rows: [[String]]

    init(_ screen: [String]) {
        rows = screen.map(Self.cells(of:))
    }

    /// The cell at `row`, `column`, or `" "` outside the captured text (trailing spaces are trimmed).
    subscript(row: Int, column: Int) -> String {
        guard rows.indices.contains(row), rows[row].indices.contains(column) else { return " " }
        return rows[row][column]
    }

    /// Every box (`┌…┐ │ │ └…┘`) on the screen, with the problems found tracing it.
    ///
    /// A box starts at each `┌`; its right column is the first `┐` after it on that row. Each
    /// row below must have `│` in both columns until a row with `└` on the left, which must
    /// have `┘` on the right. A problem names the row and what was found instead.
    func boxes() -> (boxes: [BoxFrame], problems: [String]) {
        var boxes: [BoxFrame] = []
        var problems: [String] = []
        for (top, cells) in rows.enumerated() {
            for left in cells.indices where cells[left] == "┌" {
                guard let right = cells[(left + 1)...].firstIndex(of: "┐") else {
                    problems.append("row \(top): ┌ at column \(left) has no ┐ after it")
                    continue
                }
                var bottom: Int?
                for row in (top + 1)..<max(top + 1, rows.count) {
                    let l = self[row, left], r = self[row, right]
                    if l == "└" {
                        if r != "┘" { problems.append("row \(row): box from column \(left) ends with \(r.debugDescription) at column \(right), expected ┘") }
                        bottom = row
                        break
                    }
                    if l != "│" || r != "│" {
                        problems.append("row \(row): box at columns \(left)…\(right) has \(l.debugDescription) and \(r.debugDescription), expected │ at both")
                        break
                    }
                }
                if let bottom {
                    boxes.append(BoxFrame(x: left, y: top, width: right - left + 1, height: bottom - top + 1))
                } else if problems.isEmpty || !problems.last!.hasPrefix("row") {
                    problems.append("row \(top): box at column \(left) has no bottom")
                }
            }
        }
        return (boxes, problems)
    }

    /// Whether any cell holds a box-drawing character (U+2500…U+257F).
    var hasBoxDrawing: Bool {
        rows.contains { $0.contains { $0.unicodeScalars.contains { (0x2500...0x257F).contains($0.value) } } }
    }

    /// The cells of one captured row: one per column, `""` for the second column of a wide character.
    static func cells(of row: String) -> [String] {
        var cells: [String] = []
        for scalar in row.unicodeScalars {
            switch width(of: scalar) {
            case 2:
                cells.append(String(scalar))
                cells.append("")
            case 1:
                cells.append(String(scalar))
            default:
                // Zero width: it belongs to the previous cell.
                if cells.isEmpty { cells.append(String(scalar)) } else { cells[cells.count - 1].unicodeScalars.append(scalar) }
            }
        }
        return cells
    }

    /// glibc `wcwidth` of `scalar` in C.UTF-8, on this thread only (`uselocale`).
    static func width(of scalar: Unicode.Scalar) -> Int {
        if scalar.value >= 0x20 && scalar.value < 0x7F { return 1 }
        guard let locale = utf8Locale, let wcwidth = wcwidthFunction else {
            fatalError("C.UTF-8 locale or wcwidth unavailable; end-to-end column checks need them")
        }
        let previous = uselocale(locale)
        defer { uselocale(previous) }
        return Int(wcwidth(wchar_t(bitPattern: scalar.value)))
    }

    nonisolated(unsafe) private static let utf8Locale: locale_t? = newlocale(1 << LC_CTYPE, "C.UTF-8", nil)
    private typealias WcwidthFunction = @convention(c) (wchar_t) -> Int32
    /// Glibc's module map hides `wcwidth` (it needs `_XOPEN_SOURCE`), so look it up.
    private static let wcwidthFunction: WcwidthFunction? =
        dlsym(nil, "wcwidth").map { unsafeBitCast($0, to: WcwidthFunction.self) }
}

/// A box found on screen, in cells: top-left corner and size (borders included).
struct BoxFrame: Hashable, CustomStringConvertible {
    var x, y, width, height: Int
    var maxX: Int { x + width }
    var maxY: Int { y + height }
    var description: String { "\(width)x\(height)@\(x),\(y)" }
}
