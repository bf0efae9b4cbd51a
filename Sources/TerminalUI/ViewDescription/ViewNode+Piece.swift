extension ViewNode {
    /// Part of a span's, cell's or column title's text after its literal `text`: more text,
    /// or a glyph token resolved when the view is drawn (`Glyph`).
    ///
    /// Host-internal, like `Glyph`: the JSON format has plain text only.
    public enum Piece: Sendable, Equatable {
        case text(String)
        /// `glyph` `count` times (0…`maximumGlyphCount`), e.g. a row of redaction marks.
        case glyph(Glyph, count: Int = 1)
        /// Text that updates itself ("4m ago" after "updated "), written at the frame's time
        /// when the view is drawn (`resolvingDates(at:)`); alone, at its `shownAt`.
        case date(DateText)

        /// The most times one glyph piece repeats its mark.
        public static let maximumGlyphCount = 10_000

        /// The piece's characters in `glyphs`.
        public func text(in glyphs: GlyphSet) -> String {
            switch self {
            case .text(let text): text
            case .glyph(let glyph, let count):
                String(repeating: glyph.text(in: glyphs), count: min(max(0, count), Self.maximumGlyphCount))
            case .date(let date): date.textWithoutTime
            }
        }

        /// `text` followed by `pieces`, resolved for `glyphs`.
        static func resolve(_ text: String, _ pieces: [Piece], glyphs: GlyphSet) -> String {
            pieces.isEmpty ? text : pieces.reduce(into: text) { $0 += $1.text(in: glyphs) }
        }
    }
}
