/// One line of text, aligned and truncated to its rectangle's width.
///
/// Draws on the first row of the rectangle, which it first fills with blanks in `style`
/// (so a status line paints its whole row). Text wider than the row is cut with the glyph
/// set's ellipsis.
public struct TextLine: Drawable {
    public var text: String
    public var alignment: TextAlignment
    public var style: CellStyle
    public var glyphs: GlyphSet

    public init(_ text: String, alignment: TextAlignment = .left, style: CellStyle = .plain, glyphs: GlyphSet = .unicode) {
        self.text = text
        self.alignment = alignment
        self.style = style
        self.glyphs = glyphs
    }

    public func draw(into buffer: inout CellBuffer, in rect: Rect) {
        let row = rect.splitTop(1).top.intersection(buffer.bounds)
        guard !row.isEmpty else { return }
        buffer.fill(row, with: .blank(style))
        let shown = DisplayWidth.truncate(text, toWidth: rect.width, ellipsis: glyphs.ellipsis)
        let x = rect.x + alignment.offset(textWidth: DisplayWidth.of(shown), in: rect.width)
        buffer.write(shown, x: x, y: rect.y, style: style, clip: row)
    }
}
