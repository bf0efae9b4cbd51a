
/// Large characters drawn with block glyphs (`█`, or `#` in ASCII): the face of a clock or a
/// countdown whose panel has room for it, so a tall panel shows the time large instead of one
/// line in a blank box (DESIGN.md §9).
///
/// The font is 5 rows tall and knows digits, `:`, a space and the countdown's units `d h m s`;
/// anything else (a "PM", "done") has no big face. Each font cell can be drawn `scaleX` cells
/// wide and `scaleY` rows tall. Every row of a text is the same width (blanks kept), so rows
/// centred in a panel line up.
package enum BigText {
    /// Rows of the font at scale 1.
    package static let height = 5

    /// Each character's rows, `#` for a block.
    private static let font: [Character: [String]] = [
        "0": ["###", "# #", "# #", "# #", "###"],
        "1": ["## ", " # ", " # ", " # ", "###"],
        "2": ["###", "  #", "###", "#  ", "###"],
        "3": ["###", "  #", "###", "  #", "###"],
        "4": ["# #", "# #", "###", "  #", "  #"],
        "5": ["###", "#  ", "###", "  #", "###"],
        "6": ["###", "#  ", "###", "# #", "###"],
        "7": ["###", "  #", "  #", "  #", "  #"],
        "8": ["###", "# #", "###", "# #", "###"],
        "9": ["###", "# #", "###", "  #", "###"],
        ":": [" ", "#", " ", "#", " "],
        " ": [" ", " ", " ", " ", " "],
        "d": ["  #", "  #", "###", "# #", "###"],
        "h": ["#  ", "#  ", "###", "# #", "# #"],
        "m": ["     ", "     ", "#####", "# # #", "# # #"],
        "s": ["   ", "###", "#  ", "  #", "###"],
    ]

    /// The columns `text` takes at `scaleX` (one blank column, scaled, between characters),
    /// or nil when a character has no big form.
    package static func width(_ text: String, scaleX: Int = 1) -> Int? {
        var total = 0
        for character in text {
            guard let rows = font[character] else { return nil }
            total += rows[0].count
        }
        guard !text.isEmpty else { return nil }
        return (total + text.count - 1) * max(1, scaleX)
    }

    /// The text's rows (`height × scaleY` of them), each one `text` node of block glyph
    /// tokens and blanks, centred, in `role` (bold). Nil when a character has no big form.
    package static func rows(_ text: String, scaleX: Int, scaleY: Int, role: StyleRole) -> [ViewNode]? {
        guard width(text) != nil else { return nil }
        return (0..<height).flatMap { row in
            Array(repeating: ViewNode.text(self.row(text, row, scaleX: scaleX, role: role)), count: max(1, scaleY))
        }
    }

    /// Row `row` (0..<height) of `text` at `scaleX`: block glyph tokens and blanks, centred, in
    /// `role` (bold); empty when a character has no big form.
    package static func row(_ text: String, _ row: Int, scaleX: Int, role: StyleRole) -> ViewNode.Text {
        guard width(text) != nil, (0..<height).contains(row) else { return ViewNode.Text(spans: [], alignment: .center) }
        let sx = max(1, scaleX)
        // The row at scale 1, '#' and ' ', characters one blank apart.
        let line = text.map { font[$0]![row] }.joined(separator: " ")
        var pieces: [ViewNode.Piece] = []
        var run: (block: Bool, count: Int)?
        func flush() {
            guard let run else { return }
            pieces.append(run.block ? .glyph(.block, count: run.count * sx) : .text(String(repeating: " ", count: run.count * sx)))
        }
        for character in line {
            let block = character == "#"
            if run?.block == block { run!.count += 1 } else { flush(); run = (block, 1) }
        }
        flush()
        return ViewNode.Text(spans: [ViewNode.Span(pieces: pieces, role: role, bold: true)], alignment: .center)
    }

    /// The rows of `text` at `scaleX` (one row tall each) as plain strings in `glyphs`, trailing
    /// blanks dropped: what a test looks for in a frame. Nil when a character has no big form.
    package static func lines(_ text: String, scaleX: Int, glyphs: GlyphSet) -> [String]? {
        guard width(text) != nil else { return nil }
        return (0..<height).map { row in
            var line = text.map { font[$0]![row] }.joined(separator: " ")
                .map { String(repeating: $0 == "#" ? glyphs.barFull : " ", count: max(1, scaleX)) }.joined()
            while line.last == " " { line.removeLast() }
            return line
        }
    }

    /// The largest scales (at most `maximum` each way) at which `text` fits `columns` × `rows`;
    /// the height never grows more than the width, so digits keep their shape. Nil when it
    /// does not fit at scale 1.
    package static func scales(_ text: String, columns: Int, rows: Int, maximum: Int = 4) -> (x: Int, y: Int)? {
        guard let unit = width(text), unit <= columns, height <= rows else { return nil }
        let x = min(maximum, columns / unit)
        let y = min(x, rows / height)
        return (x, y)
    }
}
