/// Splits text into the glyphs the terminal will draw, per DESIGN.md §5.
///
/// The text is sanitised first (see `Sanitizer`). Then, within each grapheme cluster:
/// variation selectors (VS16 U+FE0F and the rest) are dropped; a zero-width joiner and
/// everything after it is dropped, so a ZWJ sequence (👨‍👩‍👧) shows as its first emoji;
/// each code point of positive width (glibc `wcwidth`) starts a new glyph, and combining marks
/// attach to the glyph before them (at most four, the most ncurses keeps in a cell). Other
/// zero-width code points (ZWSP, tags) and marks with nothing to attach to are dropped;
/// unprintable code points become U+FFFD. After this the cell buffer, ncurses and the
/// terminal agree on every width.
public enum TextNormalizer {
    /// The printable ASCII characters as glyphs, made once: most text is ASCII, and making a
    /// `String` per character was most of the cost of shaping it.
    private static let asciiGlyphs: [Glyph] = (0x20..<0x7F).map { Glyph(text: String(UnicodeScalar(UInt8($0))), width: 1) }

    /// The glyphs of `text`, in order.
    public static func glyphs(of text: String) -> [Glyph] {
        let safe = Sanitizer.sanitize(text)
        var result: [Glyph] = []
        result.reserveCapacity(safe.utf8.count)
        if safe.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            for byte in safe.utf8 { result.append(asciiGlyphs[Int(byte &- 0x20)]) }
            return result
        }
        var current = String.UnicodeScalarView()
        var currentWidth = 0
        var marks = 0
        func flush() {
            if currentWidth > 0 { result.append(Glyph(text: String(current), width: currentWidth)) }
            current = String.UnicodeScalarView()
            currentWidth = 0
            marks = 0
        }
        for character in safe {
            for scalar in character.unicodeScalars {
                if scalar.value == 0x200D { break }
                if isVariationSelector(scalar) { continue }
                let width = DisplayWidth.of(scalar)
                if width > 0 {
                    flush()
                    current.append(scalar)
                    currentWidth = width
                } else if width < 0 {
                    flush()
                    current.append("\u{FFFD}")
                    currentWidth = 1
                } else if currentWidth > 0, isMark(scalar), marks < 4 {
                    current.append(scalar)
                    marks += 1
                }
            }
        }
        flush()
        return result
    }

    /// `text` as the terminal will show it: the glyphs joined.
    public static func normalize(_ text: String) -> String {
        glyphs(of: text).map(\.text).joined()
    }

    static func isVariationSelector(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0xFE00...0xFE0F, 0xE0100...0xE01EF, 0x180B...0x180D, 0x180F: true
        default: false
        }
    }

    static func isMark(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .spacingMark: true
        default: false
        }
    }
}
