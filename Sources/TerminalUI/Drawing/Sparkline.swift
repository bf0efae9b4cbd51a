/// A sparkline of recent values: `▁▂▃▄▅▆▇█` (or ASCII levels), one column per value.
///
/// Shows the last `rect.width` values, oldest on the left. Heights are relative to
/// `maximum` (default: the largest value shown, or 1 when none is positive); with a
/// taller rectangle the line grows upwards with eighth precision per row. A zero or
/// negative value is blank; any positive value shows at least the lowest level.
public struct Sparkline: Drawable {
    public var values: [Double]
    public var maximum: Double?
    public var style: CellStyle
    public var glyphs: GlyphSet

    public init(values: [Double], maximum: Double? = nil, style: CellStyle = CellStyle(.accent), glyphs: GlyphSet = .unicode) {
        self.values = values
        self.maximum = maximum
        self.style = style
        self.glyphs = glyphs
    }

    public func draw(into buffer: inout CellBuffer, in rect: Rect) {
        let clip = rect.intersection(buffer.bounds)
        guard !clip.isEmpty else { return }
        let shown = values.suffix(rect.width).map { $0.isFinite ? $0 : 0 }
        let top = maximum ?? shown.max() ?? 1
        let scale = top > 0 ? top : 1
        let levels = glyphs.sparkLevels.count
        for (i, value) in shown.enumerated() {
            var steps = Int((min(1, max(0, value / scale)) * Double(rect.height * levels)).rounded())
            if value > 0 && steps == 0 { steps = 1 }
            for row in 0..<rect.height {
                let filled = min(levels, max(0, steps - row * levels))
                let glyph = filled == 0 ? " " : glyphs.sparkLevels[filled - 1]
                buffer.write(glyph, x: rect.x + i, y: rect.maxY - 1 - row, style: style, clip: clip)
            }
        }
    }
}
