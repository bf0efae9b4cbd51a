/// The lines of a text node: spans split at line feeds, wrapped or cut to a width, each glyph
/// with its style.
struct ViewText {
    struct StyledGlyph {
        var glyph: Glyph
        var style: CellStyle
        /// The span's link, if it has one.
        var link: String? = nil
        /// The span is privacy-sensitive: the privacy mode redacts it.
        var isPrivate = false
    }

    typealias Line = [StyledGlyph]

    /// The text's lines as written (split at line feeds only); at least one.
    let lines: [Line]

    /// The text's lines with its glyph tokens resolved for `glyphs`.
    init(_ text: ViewNode.Text, glyphs: GlyphSet) {
        var lines: [Line] = []
        var current: Line = []
        for span in text.spans {
            let style = span.style
            for (i, part) in Self.split(span.resolved(glyphs)).enumerated() {
                if i > 0 {
                    lines.append(current)
                    current = []
                }
                for glyph in TextNormalizer.glyphs(of: part) {
                    current.append(StyledGlyph(glyph: glyph, style: style, link: span.link, isPrivate: span.privacySensitive))
                }
            }
        }
        lines.append(current)
        self.lines = lines
    }

    /// `string` split at its line feeds (the scalar U+000A: a CR before one stays in its part).
    static func split(_ string: String) -> [String] {
        let bytes = string.utf8
        guard bytes.contains(0x0A) else { return [string] }
        let scalars = string.unicodeScalars
        var parts: [String] = []
        var start = bytes.startIndex
        for index in bytes.indices where bytes[index] == 0x0A {
            // A line feed's byte is a whole scalar, so its index is one of the scalars' too.
            parts.append(String(scalars[start..<index]))
            start = bytes.index(after: index)
        }
        parts.append(String(scalars[start...]))
        return parts
    }

    static func width(of line: Line) -> Int { line.reduce(0) { $0 + $1.glyph.width } }

    /// The widest line.
    var naturalWidth: Int { lines.map(Self.width(of:)).max() ?? 0 }

    /// The lines as shown `width` columns wide: wrapped when `wrap` (a width of 0 wraps
    /// nothing), else as written.
    func layout(width: Int, wrap: Bool) -> [Line] {
        guard wrap, width > 0 else { return lines }
        return lines.flatMap { Self.wrap($0, width: width) }
    }

    /// Greedy word wrap: break at the last space that fits, or inside a word wider than the
    /// line; spaces at a break are dropped.
    static func wrap(_ line: Line, width: Int) -> [Line] {
        var result: [Line] = []
        var start = 0
        while start < line.count {
            var end = start
            var used = 0
            while end < line.count, used + line[end].glyph.width <= width {
                used += line[end].glyph.width
                end += 1
            }
            if end == line.count {
                result.append(Array(line[start..<end]))
                break
            }
            var cut = end
            if line[end].glyph.text != " " {
                if let space = line[start..<end].lastIndex(where: { $0.glyph.text == " " }), space > start {
                    cut = space
                } else if end == start {
                    cut = start + 1  // a glyph wider than the line: take it alone (it draws as a space)
                }
            }
            var piece = Array(line[start..<cut])
            while piece.last?.glyph.text == " " { piece.removeLast() }
            result.append(piece)
            start = cut
            while start < line.count, line[start].glyph.text == " " { start += 1 }
        }
        return result.isEmpty ? [[]] : result
    }

    /// `line` cut to `width` columns ending in `ellipsis` when it does not fit, or always when
    /// `forceEllipsis` (the last line shown of a text with more lines than rows).
    static func truncate(_ line: Line, width: Int, ellipsis: String, forceEllipsis: Bool = false) -> Line {
        guard width > 0 else { return [] }
        let total = self.width(of: line)
        if total <= width && !forceEllipsis { return line }
        let markStyle = forceEllipsis && total <= width ? (line.last?.style ?? .plain) : line[prefixCount(line, width: width)].style
        let mark = TextNormalizer.glyphs(of: ellipsis).map { StyledGlyph(glyph: $0, style: markStyle) }
        let markWidth = self.width(of: mark)
        if markWidth >= width { return Array(mark.prefix(prefixCount(mark, width: width))) }
        if forceEllipsis && total + markWidth <= width { return line + mark }
        return Array(line.prefix(prefixCount(line, width: width - markWidth))) + mark
    }

    /// How many glyphs from the start fit in `width` columns.
    static func prefixCount(_ line: Line, width: Int) -> Int {
        var used = 0
        for (i, styled) in line.enumerated() {
            if used + styled.glyph.width > width { return i }
            used += styled.glyph.width
        }
        return line.count
    }
}
