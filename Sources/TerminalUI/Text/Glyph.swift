/// One drawable unit of text: a spacing code point with its zero-width marks, and its width.
///
/// Produced by `TextNormalizer.glyphs(of:)`; `width` is 1 or 2 columns, the number of
/// cells the terminal will use for it.
public struct Glyph: Hashable, Sendable {
    public let text: String
    public let width: Int

    public init(text: String, width: Int) {
        self.text = text
        self.width = width
    }
}
