/// A horizontal bar showing a fraction from 0 to 1, e.g. a hero's health.
///
/// With Unicode glyphs the end of the bar has eighth-of-a-cell precision (`█████▍`); with
/// ASCII it is whole `#` cells. The rest of the row is the track in `trackStyle`. Every row
/// of the rectangle is drawn. Fractions outside 0…1 are clamped; NaN counts as 0.
public struct Bar: Drawable {
    public var fraction: Double
    public var style: CellStyle
    public var trackStyle: CellStyle
    public var glyphs: GlyphSet
    /// What the unfilled cells show; nil: the glyph set's `barTrack` (a blank).
    public var trackGlyph: String?

    public init(fraction: Double, style: CellStyle = CellStyle(.accent), trackStyle: CellStyle = CellStyle(.muted),
                glyphs: GlyphSet = .unicode, trackGlyph: String? = nil) {
        self.fraction = fraction
        self.style = style
        self.trackStyle = trackStyle
        self.glyphs = glyphs
        self.trackGlyph = trackGlyph
    }

    /// The bar's cells for `width` columns: (glyph, filled?) left to right.
    public func cells(width: Int) -> [(glyph: String, filled: Bool)] {
        guard width > 0 else { return [] }
        let clamped = fraction.isNaN ? 0 : min(1, max(0, fraction))
        let steps = glyphs.barEighths.isEmpty ? 1 : 8
        let total = Int((clamped * Double(width * steps)).rounded())
        var cells = Array(repeating: (glyph: glyphs.barFull, filled: true), count: total / steps)
        if total % steps > 0 { cells.append((glyphs.barEighths[total % steps - 1], true)) }
        while cells.count < width { cells.append((trackGlyph ?? glyphs.barTrack, false)) }
        return cells
    }

    public func draw(into buffer: inout CellBuffer, in rect: Rect) {
        let clip = rect.intersection(buffer.bounds)
        guard !clip.isEmpty else { return }
        let cells = cells(width: rect.width)
        // The glyphs are the set's own (single-width, inert), unless a caller gave a track
        // glyph of its own: that one goes through `write` like any text.
        let trusted = trackGlyph == nil || trackGlyph == glyphs.meterTrack
        for y in clip.y..<clip.maxY {
            for (i, cell) in cells.enumerated() {
                if trusted {
                    buffer.putPrimitiveGlyph(cell.glyph, x: rect.x + i, y: y, style: cell.filled ? style : trackStyle, clip: clip)
                } else {
                    buffer.write(cell.glyph, x: rect.x + i, y: y, style: cell.filled ? style : trackStyle, clip: clip)
                }
            }
        }
    }
}
