extension ViewNode {
    /// The view with its glyph tokens written out for `glyphs` and its span limits applied:
    /// plain text, as an extension would send it for that terminal. It draws the same as the
    /// view itself drawn with `glyphs`.
    public func resolvingGlyphs(_ glyphs: GlyphSet) -> ViewNode {
        switch self {
        case .vstack(let stack):
            return .vstack(Stack(children: stack.children.map { $0.resolvingGlyphs(glyphs) }, gap: stack.gap, weights: stack.weights))
        case .hstack(let stack):
            return .hstack(Stack(children: stack.children.map { $0.resolvingGlyphs(glyphs) }, gap: stack.gap, weights: stack.weights))
        case .text(var text):
            text.spans = text.spans.map { Span($0.resolved(glyphs), role: $0.role, bold: $0.bold) }
            return .text(text)
        case .table(var table):
            table.columns = table.columns.map { column in
                var column = column
                column.title = Piece.resolve(column.title, column.titlePieces, glyphs: glyphs)
                column.titlePieces = []
                return column
            }
            table.rows = table.rows.map { row in
                row.map { cell in
                    var cell = cell
                    cell.text = Piece.resolve(cell.text, cell.pieces, glyphs: glyphs)
                    cell.pieces = []
                    return cell
                }
            }
            return .table(table)
        case .bar, .sparkline, .spacer, .divider, .date:
            return self
        }
    }
}
