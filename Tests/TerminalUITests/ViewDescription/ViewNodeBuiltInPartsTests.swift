import JSONTree
import Testing
import TerminalUI
import WidgetTestSupport

/// Draws `node` into a fresh `width`×`height` buffer.
private func render(_ node: ViewNode, width: Int, height: Int, glyphs: GlyphSet = .unicode) -> CellBuffer {
    var buffer = CellBuffer(width: width, height: height)
    node.draw(into: &buffer, in: buffer.bounds, glyphs: glyphs)
    return buffer
}

/// A ranked table as the leaderboard draws one: fixed widths, a rank that moved up, a bar cell,
/// and a detail row spanning from the name column to the right edge.
private let ranked = ViewNode.table(ViewNode.Table(
    columns: [ViewNode.Column("#", width: 3), ViewNode.Column("Hero"),
              ViewNode.Column(titlePieces: [.glyph(.delta)], alignment: .right, width: 4), ViewNode.Column("HP", width: 4)],
    rows: [
        [ViewNode.Cell("1", pieces: [.glyph(.rankUp)], role: .positive, bold: true), ViewNode.Cell("Octo"),
         ViewNode.Cell("+5k"), .bar(0.5, role: .warning)],
        [ViewNode.Cell(""), ViewNode.Cell("Octopus", pieces: [.glyph(.separator), .text("full in 3h")], role: .muted, span: 3)],
    ]))

@Suite("ViewNode parts for built-in views")
struct ViewNodeBuiltInPartsTests {
    @Test("glyph tokens are drawn in the terminal's glyph set: Unicode and ASCII")
    func glyphTokens() {
        let line = ViewNode.text([
            ViewNode.Span.glyph(.warning, role: .warning),
            ViewNode.Span(" refused", pieces: [.glyph(.separator), .text("retry"), .glyph(.ellipsis)], role: .warning),
        ])
        expectFrame(render(line, width: 24, height: 1), equals: ["⚠ refused · retry…"])
        expectFrame(render(line, width: 24, height: 1, glyphs: .ascii), equals: ["! refused - retry..."])
        let marks = ViewNode.text([ViewNode.Span(pieces: ViewNode.Glyph.allCases.map { .glyph($0) })])
        expectFrame(render(marks, width: 24, height: 1), equals: ["⚠ · ▒…▲▼Δ—█·"])
        expectFrame(render(marks, width: 24, height: 1, glyphs: .ascii), equals: ["! - #...^v+/--#."])
        let redacted = ViewNode.text([.glyph(.redaction, count: 5, role: .placeholder)])
        expectFrame(render(redacted, width: 8, height: 1), equals: ["▒▒▒▒▒"])
        expectFrame(render(redacted, width: 8, height: 1, glyphs: .ascii), equals: ["#####"])
        #expect(render(redacted, width: 8, height: 1)[0, 0].style == CellStyle(.placeholder))
        // Measured as drawn: "+/-" is three columns where "Δ" is one, so the right-aligned text moves.
        let delta = ViewNode.text([ViewNode.Span("x", pieces: [.glyph(.delta)])], alignment: .right)
        expectFrame(render(delta, width: 5, height: 1), equals: ["   xΔ"])
        expectFrame(render(delta, width: 5, height: 1, glyphs: .ascii), equals: [" x+/-"])
        #expect(ViewNode.Piece.glyph(.redaction, count: 1_000_000).text(in: .ascii).count == ViewNode.Piece.maximumGlyphCount)
    }

    @Test("a span's limit cuts it with the set's ellipsis and keeps what follows it on the line")
    func spanLimit() {
        let footer = ViewNode.text([
            ViewNode.Span(pieces: [.glyph(.warning), .text(" a very long reason")], role: .warning, limit: 10),
            ViewNode.Span(pieces: [.glyph(.separator), .text("3m old")], role: .warning),
        ])
        expectFrame(render(footer, width: 30, height: 1), equals: ["⚠ a very … · 3m old"])
        expectFrame(render(footer, width: 30, height: 1, glyphs: .ascii), equals: ["! a ver... - 3m old"])
        // Within its limit a span is untouched; a limited span stays one line.
        expectFrame(render(.text([ViewNode.Span("short", pieces: [], limit: 10)]), width: 12, height: 1), equals: ["short"])
        expectFrame(render(.text([ViewNode.Span("a\nb", pieces: [], limit: 10)]), width: 12, height: 2), equals: ["a␊b", ""])
    }

    @Test("fixed column widths: exactly that, never a share of the rest; with a minimum column they do not share either")
    func fixedWidths() {
        let table = ViewNode.Table(columns: [ViewNode.Column("#", width: 3), ViewNode.Column("Hero"),
                                             ViewNode.Column("Exp", alignment: .right, width: 7)], rows: [])
        #expect(table.columnWidths(in: 30) == [3, 18, 7])
        #expect(table.columnWidths(in: 8) == [3, 0, 3], "fixed columns first, left to right, while room remains")
        let fixedAndMinimum = ViewNode.Table(columns: [ViewNode.Column("a", width: 2), ViewNode.Column("b", minimum: 2)], rows: [])
        #expect(fixedAndMinimum.columnWidths(in: 10) == [2, 7], "the minimum column takes the rest, the fixed one does not")
        let allFixed = ViewNode.Table(columns: [ViewNode.Column("a", width: 2), ViewNode.Column("b", width: 3)], rows: [])
        #expect(allFixed.columnWidths(in: 20) == [2, 3])
        #expect(ViewNode.Column(minimum: 4, width: 2).minimum == nil && ViewNode.Column(width: 5_000).width == 1_000)
    }

    @Test("a ranked table: glyph tokens in a title and a cell, a bar cell, a row spanning to the right edge; Unicode and ASCII")
    func rankedTable() {
        let unicode = render(ranked, width: 24, height: 3)
        let gap = { (n: Int) in String(repeating: " ", count: n) }
        expectFrame(unicode, equals: ["#   Hero" + gap(10) + "Δ HP", "1▲  Octo" + gap(8) + "+5k ██", "    Octopus · full in 3h"])
        #expect(unicode[0, 1].style == CellStyle(.positive, .bold) && unicode[1, 1].grapheme == "▲")
        #expect(unicode[20, 1].style == CellStyle(.warning) && unicode[22, 1].style == CellStyle(.muted), "the bar on its muted track")
        #expect(unicode[4, 2].style == CellStyle(.muted) && unicode[23, 2].style == CellStyle(.muted), "the span fills to the edge")
        expectFrame(render(ranked, width: 24, height: 3, glyphs: .ascii),
                    equals: ["#   Hero" + gap(8) + "+/- HP", "1^  Octo" + gap(8) + "+5k ##", "    Octopus - full in 3h"])
        // A span short of the last column covers its columns and the blanks between them;
        // over columns with no width it draws nothing.
        let inner = ViewNode.table(ViewNode.Table(
            columns: [ViewNode.Column(width: 2), ViewNode.Column(width: 2), ViewNode.Column(width: 0), ViewNode.Column(width: 0),
                      ViewNode.Column(width: 3)],
            rows: [[ViewNode.Cell("abcdefgh", pieces: [], span: 2), ViewNode.Cell("xy", pieces: [], span: 2), ViewNode.Cell("z")]]))
        expectFrame(render(inner, width: 12, height: 1), equals: ["abcd…   z"])
        // Narrower: the spanning cell is cut at the table's edge like any cell.
        expectFrame(render(ranked, width: 16, height: 3), equals: ["#   H…    Δ HP", "1▲  O…  +5k ██", "    Octopus · f…"])
    }

    @Test("a sparkline's maximum is a full column: values below it stay low, values above are clamped")
    func sparklineMaximum() {
        let quiet: [Double] = [0.1, 0.2, 0.5, 1, 2]
        expectFrame(render(.sparkline(quiet, maximum: 1), width: 5, height: 1), equals: ["▁▂▄██"])
        expectFrame(render(.sparkline(quiet), width: 5, height: 1), equals: ["▁▁▂▄█"])  // without: scaled to the largest shown
        expectFrame(render(.sparkline(quiet, maximum: 1), width: 5, height: 1, glyphs: .ascii), equals: ["_.-##"])
        expectFrame(render(.sparkline([0.5, 1], maximum: 1), width: 2, height: 2), equals: [" █", "██"])
        #expect(ViewNode.Sparkline(values: [], maximum: 0).maximum == nil && ViewNode.Sparkline(values: [], maximum: .infinity).maximum == nil)
    }

    @Test("resolvingGlyphs writes a view out as plain text for one glyph set, and draws the same")
    func resolving() throws {
        for glyphs in [GlyphSet.unicode, .ascii] {
            let resolved = ranked.resolvingGlyphs(glyphs)
            #expect(render(resolved, width: 24, height: 3, glyphs: glyphs) == render(ranked, width: 24, height: 3, glyphs: glyphs))
        }
        let footer = ViewNode.text([ViewNode.Span(pieces: [.glyph(.warning), .text(" long reason")], role: .warning, limit: 6)])
        #expect(footer.resolvingGlyphs(.ascii) == .text("! l...", role: .warning))
        // JSON has no tokens: they are written for Unicode.
        #expect(footer.jsonText == #"{"type":"text","spans":[{"text":"⚠ lon…","role":"warning"}]}"#)
    }

    @Test("extensions may send a sparkline's max and a column's fixed width; both are checked")
    func decoding() throws {
        let node = try ViewNode.decode(Array("""
            {"type": "vstack", "children": [{"type": "sparkline", "values": [0.5], "max": 1},
              {"type": "table", "columns": [{"title": "#", "width": 3}, {"title": "Hero"}], "rows": []}]}
            """.utf8))
        #expect(node == .vstack([.sparkline([0.5], maximum: 1),
                                 .table(ViewNode.Table(columns: [ViewNode.Column("#", width: 3), ViewNode.Column("Hero")], rows: []))]))
        #expect(try ViewNode.decode(node.jsonValue) == node, "encodes to what decodes back")
        func problems(_ json: String) -> [String] {
            do {
                _ = try ViewNode.decode(Array(json.utf8))
                return []
            } catch {
                return error.issues.map(\.description)
            }
        }
        #expect(problems(#"{"type": "sparkline", "values": [], "max": 0}"#) == ["view.max: must be greater than 0, found 0"])
        #expect(problems(#"{"type": "sparkline", "values": [], "max": "1"}"#) == [#"view.max: expected a number, found "1""#])
        #expect(problems(#"{"type": "table", "columns": [{"width": 1001}], "rows": []}"#)
                == ["view.columns[0].width: 1001 is out of range 0…1000"])
        #expect(problems(#"{"type": "table", "columns": [{"width": 2, "min": 1}], "rows": []}"#)
                == [#"view.columns[0]: has both "min" and "width"; give one"#])
    }

    @Test("a bar with a track: its unfilled part a rail of · (. in ASCII), sent and read back as \"track\": true")
    func barTrack() throws {
        let meter = ViewNode.bar(0.25, role: .positive, showsTrack: true)
        expectFrame(render(meter, width: 8, height: 1), equals: ["██······"])
        expectFrame(render(meter, width: 8, height: 1, glyphs: .ascii), equals: ["##......"])
        expectFrame(render(.bar(0.25), width: 8, height: 1), equals: ["██"])
        #expect(meter.jsonText == #"{"type":"bar","value":0.25,"role":"positive","track":true}"#)
        #expect(try ViewNode.decode(Array(meter.jsonText.utf8)) == meter)
        #expect(throws: ViewDescriptionError.self) { try ViewNode.decode(Array(#"{"type": "bar", "value": 1, "track": 1}"#.utf8)) }
    }
}
