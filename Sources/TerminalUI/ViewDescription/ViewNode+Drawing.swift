extension ViewNode {
    /// Draws the view into `rect` of `buffer` with `glyphs` (Unicode or ASCII).
    ///
    /// Draws only inside `rect` (clipped to the buffer) and only the cells the view uses: the
    /// caller clears the area first. Safe with any rectangle, including empty ones, and any
    /// tree a `ViewNode` can hold; text is sanitised and measured like every other string.
    public func draw(into buffer: inout CellBuffer, in rect: Rect, glyphs: GlyphSet) {
        ViewLayout(self).draw(into: &buffer, in: rect, clip: rect.intersection(buffer.bounds), glyphs: glyphs, parent: .vertical)
    }

    /// Text: one row per line (wrapped when asked), each filled with blanks in the first
    /// span's style, aligned, cut with the ellipsis; when lines are left over, the last row
    /// shown ends in the ellipsis.
    fileprivate static func drawText(_ text: Text, lines: [ViewText.Line], into buffer: inout CellBuffer, in rect: Rect, clip: Rect,
                                     glyphs: GlyphSet) {
        let fill = text.spans.first?.style ?? .plain
        let shown = min(lines.count, rect.height)
        for (i, line) in lines.prefix(shown).enumerated() {
            let y = rect.y + i
            guard y >= clip.y else { continue }
            guard y < clip.maxY else { break }
            let row = Rect(x: rect.x, y: y, width: rect.width, height: 1).intersection(clip)
            buffer.fill(row, with: .blank(fill))
            let cut = ViewText.truncate(line, width: rect.width, ellipsis: glyphs.ellipsis,
                                        forceEllipsis: i == shown - 1 && shown < lines.count)
            var x = rect.x + text.alignment.offset(textWidth: ViewText.width(of: cut), in: rect.width)
            for styled in cut {
                x = buffer.write(styled.glyph.text, x: x, y: y, style: styled.style, clip: row)
                if x >= row.maxX { break }
            }
        }
    }

    /// A table through `TerminalUI.Table`, with the column widths of docs/views.md.
    fileprivate static func drawTable(_ table: Table, into buffer: inout CellBuffer, in rect: Rect, clip: Rect, glyphs: GlyphSet) {
        let widths = table.columnWidths(in: rect.width)
        let columns = zip(table.columns, widths).map { column, width in
            TableColumn(column.title, width: .fixed(width), alignment: column.alignment)
        }
        let rows = table.rows.prefix(rect.height).map { row in
            row.map { TableCell($0.text, style: CellStyle($0.role, $0.bold ? .bold : [])) }
        }
        TerminalUI.Table(columns: columns, rows: Array(rows), showsHeader: table.columns.contains { !$0.title.isEmpty },
                         glyphs: glyphs)
            .draw(into: &buffer, in: rect)
    }

    /// A bar on every row; a label, when there is room for it, a blank and one bar cell, at
    /// the right end of the first row in the bar's role.
    fileprivate static func drawBar(_ bar: Bar, into buffer: inout CellBuffer, in rect: Rect, clip: Rect, glyphs: GlyphSet) {
        let style = CellStyle(bar.role)
        var barRect = rect
        if let label = bar.label, !label.isEmpty {
            let width = DisplayWidth.of(label)
            if width + 2 <= rect.width {
                barRect = rect.splitLeft(rect.width - width - 1).left
                TextLine(label, alignment: .right, style: style, glyphs: glyphs)
                    .draw(into: &buffer, in: Rect(x: barRect.maxX, y: rect.y, width: width + 1, height: 1).intersection(clip))
            }
        }
        TerminalUI.Bar(fraction: bar.value, style: style, glyphs: glyphs).draw(into: &buffer, in: barRect)
    }
}

extension ViewNode.Table {
    /// The width of each column in a table `width` columns wide (one blank between columns).
    ///
    /// Columns with a `min` get it first, left to right, while room remains; what is left is
    /// shared equally by the columns without a `min` (by all of them when every column has
    /// one), leftover columns going to the first. A column with no width is not drawn.
    public func columnWidths(in width: Int) -> [Int] {
        var remaining = max(0, width - max(0, columns.count - 1))
        var widths = Array(repeating: 0, count: columns.count)
        for (i, column) in columns.enumerated() {
            if let minimum = column.minimum {
                widths[i] = min(max(0, minimum), remaining)
                remaining -= widths[i]
            }
        }
        var sharing = columns.indices.filter { columns[$0].minimum == nil }
        if sharing.isEmpty { sharing = Array(columns.indices) }
        for (k, i) in sharing.enumerated() {
            widths[i] += remaining / sharing.count + (k < remaining % sharing.count ? 1 : 0)
        }
        return widths
    }
}

extension ViewLayout {
    /// Draws the node into `rect`, clipped to `clip`; `parent` is the enclosing stack's axis.
    func draw(into buffer: inout CellBuffer, in rect: Rect, clip: Rect, glyphs: GlyphSet, parent: ViewNode.Axis) {
        let area = rect.intersection(clip)
        guard !area.isEmpty else { return }
        switch node {
        case .vstack(let stack):
            let lengths = self.lengths(total: rect.height, cross: rect.width, axis: .vertical)
            var y = rect.y
            for (child, height) in zip(children, lengths) {
                child.draw(into: &buffer, in: Rect(x: rect.x, y: y, width: rect.width, height: height),
                           clip: area, glyphs: glyphs, parent: .vertical)
                y += height + stack.gap
                if y >= area.maxY { break }
            }
        case .hstack(let stack):
            let lengths = self.lengths(total: rect.width, cross: rect.height, axis: .horizontal)
            var x = rect.x
            for (child, width) in zip(children, lengths) {
                child.draw(into: &buffer, in: Rect(x: x, y: rect.y, width: width, height: rect.height),
                           clip: area, glyphs: glyphs, parent: .horizontal)
                x += width + stack.gap
                if x >= area.maxX { break }
            }
        case .text(let text):
            ViewNode.drawText(text, lines: lines(width: rect.width), into: &buffer, in: rect, clip: area, glyphs: glyphs)
        case .table(let table):
            ViewNode.drawTable(table, into: &buffer, in: rect, clip: area, glyphs: glyphs)
        case .bar(let bar):
            ViewNode.drawBar(bar, into: &buffer, in: rect, clip: area, glyphs: glyphs)
        case .sparkline(let sparkline):
            TerminalUI.Sparkline(values: sparkline.values, style: CellStyle(sparkline.role), glyphs: glyphs)
                .draw(into: &buffer, in: rect)
        case .spacer:
            break
        case .divider(let role):
            let style = CellStyle(role)
            // One line at the start of its space, across the parent's axis.
            if parent == .horizontal {
                guard area.x == rect.x else { return }
                for y in area.y..<area.maxY {
                    buffer.write(glyphs.vertical, x: rect.x, y: y, style: style, clip: area)
                }
            } else {
                guard area.y == rect.y else { return }
                for x in area.x..<area.maxX {
                    buffer.write(glyphs.horizontal, x: x, y: rect.y, style: style, clip: area)
                }
            }
        }
    }
}
