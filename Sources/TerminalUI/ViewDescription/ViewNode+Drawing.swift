import FoundationEssentials

extension ViewNode {
    /// Draws the view into `rect` of `buffer` with `glyphs` (Unicode or ASCII).
    ///
    /// Draws only inside `rect` (clipped to the buffer) and only the cells the view uses: the
    /// caller clears the area first. Safe with any rectangle, including empty ones, and any
    /// tree a `ViewNode` can hold; text is sanitised and measured like every other string.
    /// Date nodes and timer bars are drawn at `now`, the frame's time (nil: each at its own date).
    public func draw(into buffer: inout CellBuffer, in rect: Rect, glyphs: GlyphSet, at now: Date? = nil) {
        ViewLayout(resolvingDates(at: now), glyphs: glyphs).draw(into: &buffer, in: rect, clip: rect.intersection(buffer.bounds), glyphs: glyphs,
                                              parent: .vertical)
    }

    /// Text: one row per line (wrapped when asked), each filled with blanks in the first
    /// span's style, aligned, cut with the ellipsis; when lines are left over, the last row
    /// shown ends in the ellipsis.
    fileprivate static func drawText(_ text: Text, lines: [ViewText.Line], into buffer: inout CellBuffer, in rect: Rect, clip: Rect,
                                     glyphs: GlyphSet) {
        // The blanks around the text are not part of a link: never underlined.
        var fill = text.spans.first?.style ?? .plain
        fill.attributes.remove(.underline)
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
                let start = x
                x = buffer.write(styled.glyph.text, x: x, y: y, style: styled.style, clip: row)
                if let link = styled.link { buffer.addLink(link, Rect(x: start, y: y, width: x - start, height: 1)) }
                if styled.isPrivate { buffer.addPrivateArea(Rect(x: start, y: y, width: x - start, height: 1).intersection(row)) }
                if x >= row.maxX { break }
            }
        }
    }

    /// A table as `TerminalUI.Table` draws one (header in `muted` bold, one blank between
    /// columns, each cell a `TextLine` cut to its column), with the column widths of
    /// docs/views.md, glyph tokens resolved, cells that span columns and cells that are bars.
    fileprivate static func drawTable(_ table: Table, into buffer: inout CellBuffer, in rect: Rect, clip: Rect, glyphs: GlyphSet) {
        guard !rect.intersection(buffer.bounds).isEmpty else { return }
        let widths = table.columnWidths(in: rect.width)
        // Where each column starts, and (last) where the row ends.
        var starts = [rect.x]
        for width in widths { starts.append(starts[starts.count - 1] + width + 1) }
        starts[starts.count - 1] = rect.maxX
        var lines: [[Cell]] = []
        let header = CellStyle(.muted, .bold)
        if table.columns.contains(where: \.hasTitle) {
            lines.append(table.columns.map { Cell($0.title, pieces: $0.titlePieces, role: header.role, bold: true) })
        }
        lines += table.rows.prefix(rect.height)
        for (row, cells) in lines.prefix(rect.height).enumerated() {
            if cells.isEmpty {
                // A row without cells (a view's spacing): each column blank, as an empty text
                // cell draws it, without laying out an empty text per column.
                for (column, width) in widths.enumerated() where width > 0 {
                    buffer.fill(Rect(x: starts[column], y: rect.y + row, width: width, height: 1).intersection(rect),
                                with: .blank(CellStyle(.foreground)))
                }
                continue
            }
            var column = 0
            var index = 0
            while column < widths.count {
                let cell = index < cells.count ? cells[index] : Cell("")
                index += 1
                let end = min(widths.count, column + cell.span)
                defer { column = end }
                // A span reaching the last column takes the rest of the row; any other cell its
                // columns and the blanks between them, nothing when they have no width.
                let covered = widths[column..<end].reduce(0, +)
                let toEdge = end == widths.count && cell.span > 1
                let width = toEdge ? starts[end] - starts[column] : covered + (end - column - 1)
                guard width > 0, covered > 0 || toEdge else { continue }
                let area = Rect(x: starts[column], y: rect.y + row, width: width, height: 1).intersection(rect)
                if cell.privacySensitive { buffer.addPrivateArea(area.intersection(clip)) }
                if let fraction = cell.fraction {
                    TerminalUI.Bar(fraction: fraction, style: CellStyle(cell.role, accentable: cell.accentable), glyphs: glyphs)
                        .draw(into: &buffer, in: area)
                } else {
                    TextLine(Piece.resolve(cell.text, cell.pieces, glyphs: glyphs), alignment: table.columns[column].alignment,
                             style: CellStyle(cell.role, cell.bold ? .bold : [], accentable: cell.accentable), glyphs: glyphs)
                        .draw(into: &buffer, in: area)
                }
            }
        }
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
        TerminalUI.Bar(fraction: bar.value, style: style, glyphs: glyphs, trackGlyph: bar.showsTrack ? glyphs.meterTrack : nil)
            .draw(into: &buffer, in: barRect)
    }
}

extension ViewNode.Table {
    /// The width of each column in a table `width` columns wide (one blank between columns).
    ///
    /// Columns with a `min` or a fixed `width` get it first, left to right, while room remains;
    /// what is left is shared equally by the columns with neither (by the columns with a `min`
    /// when every column has one or the other; by none when all are fixed), leftover columns
    /// going to the first. A column with no width is not drawn.
    public func columnWidths(in width: Int) -> [Int] {
        var remaining = max(0, width - max(0, columns.count - 1))
        var widths = Array(repeating: 0, count: columns.count)
        for (i, column) in columns.enumerated() {
            if let wanted = column.width ?? column.minimum {
                widths[i] = min(max(0, wanted), remaining)
                remaining -= widths[i]
            }
        }
        var sharing = columns.indices.filter { columns[$0].minimum == nil && columns[$0].width == nil }
        if sharing.isEmpty { sharing = columns.indices.filter { columns[$0].width == nil } }
        guard !sharing.isEmpty else { return widths }
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
        // An accentable node's cells (its blanks too) take the accented mode's accent tone.
        defer { if node.isAccentable { buffer.markAccentable(area) } }
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
            if bar.privacySensitive { buffer.addPrivateArea(area) }
        case .sparkline(let sparkline):
            if sparkline.privacySensitive { buffer.addPrivateArea(area) }
            TerminalUI.Sparkline(values: sparkline.values, maximum: sparkline.maximum, style: CellStyle(sparkline.role), glyphs: glyphs)
                .draw(into: &buffer, in: rect)
        case .spacer, .date:
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
