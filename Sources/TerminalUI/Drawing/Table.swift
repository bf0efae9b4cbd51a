/// Rows of text in aligned columns, each cell truncated to its column.
///
/// Columns are separated by `spacing` blanks. Fixed widths are given first, left to right,
/// as long as room remains; flexible columns share the rest equally (leftover columns go
/// to the first ones). A column left with no width is not drawn. The optional header row
/// uses `headerStyle`; rows that do not fit in the height are left out; missing cells are
/// blank, extra cells ignored.
public struct Table: Drawable {
    public var columns: [TableColumn]
    public var rows: [[TableCell]]
    public var showsHeader: Bool
    public var headerStyle: CellStyle
    public var spacing: Int
    public var glyphs: GlyphSet

    public init(columns: [TableColumn], rows: [[TableCell]], showsHeader: Bool = true,
                headerStyle: CellStyle = CellStyle(.muted, .bold), spacing: Int = 1, glyphs: GlyphSet = .unicode) {
        self.columns = columns
        self.rows = rows
        self.showsHeader = showsHeader
        self.headerStyle = headerStyle
        self.spacing = max(0, spacing)
        self.glyphs = glyphs
    }

    /// The width each column gets in a table `width` columns wide.
    public func columnWidths(in width: Int) -> [Int] {
        var remaining = max(0, width - spacing * max(0, columns.count - 1))
        var widths = Array(repeating: 0, count: columns.count)
        for (i, column) in columns.enumerated() {
            if case let .fixed(n) = column.width {
                widths[i] = min(max(0, n), remaining)
                remaining -= widths[i]
            }
        }
        let flexible = columns.indices.filter { columns[$0].width == .flexible }
        for (k, i) in flexible.enumerated() {
            widths[i] = remaining / flexible.count + (k < remaining % flexible.count ? 1 : 0)
        }
        return widths
    }

    public func draw(into buffer: inout CellBuffer, in rect: Rect) {
        guard !rect.intersection(buffer.bounds).isEmpty else { return }
        let widths = columnWidths(in: rect.width)
        var lines: [[TableCell]] = []
        if showsHeader { lines.append(columns.map { TableCell($0.title, style: headerStyle) }) }
        lines += rows
        for (row, cells) in lines.prefix(rect.height).enumerated() {
            var x = rect.x
            for (i, column) in columns.enumerated() {
                defer { x += widths[i] + spacing }
                guard widths[i] > 0 else { continue }
                let cell = i < cells.count ? cells[i] : TableCell("")
                let area = Rect(x: x, y: rect.y + row, width: widths[i], height: 1).intersection(rect)
                TextLine(cell.text, alignment: column.alignment, style: cell.style, glyphs: glyphs)
                    .draw(into: &buffer, in: area)
            }
        }
    }
}
