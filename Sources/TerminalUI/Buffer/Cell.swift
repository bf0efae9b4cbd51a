/// One terminal cell: a grapheme (already sanitised and normalised) and its style.
///
/// A wide glyph (display width 2) occupies its cell and the next one; the next one is a
/// *continuation* cell with an empty grapheme, which backends skip. Cells are created by
/// `CellBuffer` writes, which keep that pairing intact.
public struct Cell: Hashable, Sendable {
    /// The text drawn in this cell: one spacing code point plus any zero-width marks,
    /// or "" for the right half of a wide glyph.
    public internal(set) var grapheme: String
    public var style: CellStyle

    /// A cell showing `grapheme`; the caller guarantees it is a single column wide and inert
    /// (use `CellBuffer.write` for untrusted or wide text).
    public init(_ grapheme: String, style: CellStyle = .plain) {
        self.grapheme = grapheme
        self.style = style
    }

    /// A space in the given style.
    public static func blank(_ style: CellStyle = .plain) -> Cell { Cell(" ", style: style) }

    /// The right half of a wide glyph.
    static func continuation(_ style: CellStyle) -> Cell { Cell("", style: style) }

    /// Whether this is the right half of a wide glyph.
    public var isContinuation: Bool { grapheme.isEmpty }
}
