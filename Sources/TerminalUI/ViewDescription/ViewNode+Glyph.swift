extension ViewNode {
    /// A mark whose characters depend on the terminal: a view names the mark, and the glyph set
    /// it is drawn with (Unicode or ASCII) picks the characters, so a view is one value
    /// whichever terminal shows it.
    ///
    /// Host-internal: built-in views use them in `Piece`s; the JSON format has no glyph tokens
    /// (an extension writes the characters it wants), and `jsonValue` writes them resolved for
    /// Unicode.
    public enum Glyph: String, Sendable, Equatable, CaseIterable {
        /// "⚠" or "!": before a problem.
        case warning
        /// " · " or " - ": between parts of a line.
        case separator
        /// "▒" or "#": a redacted cell, as the placeholder look draws.
        case redaction
        /// "…" or "...": where text was cut.
        case ellipsis
        /// "▲" or "^": moved up (a rank).
        case rankUp
        /// "▼" or "v": moved down.
        case rankDown
        /// "Δ" or "+/-": a change.
        case delta
        /// "—" or "-": a value that is missing.
        case missing
        /// "█" or "#": one cell of a large character (a clock's big digits).
        case block
        /// "·" or ".": a leader, dots that lead the eye from a label to its value.
        case leader

        /// The mark's characters in `glyphs`.
        public func text(in glyphs: GlyphSet) -> String {
            switch self {
            case .warning: glyphs.isUnicode ? "⚠" : "!"
            case .separator: glyphs.isUnicode ? " · " : " - "
            case .redaction: glyphs.redaction
            case .ellipsis: glyphs.ellipsis
            case .rankUp: glyphs.isUnicode ? "▲" : "^"
            case .rankDown: glyphs.isUnicode ? "▼" : "v"
            case .delta: glyphs.isUnicode ? "Δ" : "+/-"
            case .missing: glyphs.isUnicode ? "—" : "-"
            case .block: glyphs.barFull
            case .leader: glyphs.meterTrack
            }
        }

        /// The columns the mark takes in the wider of the two glyph sets: what a view keeps
        /// for it when it shares a line's width out before the glyph set is known.
        public var widestWidth: Int {
            max(DisplayWidth.of(text(in: .unicode)), DisplayWidth.of(text(in: .ascii)))
        }
    }
}
