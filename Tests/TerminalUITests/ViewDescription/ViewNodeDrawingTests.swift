import Testing
import TerminalUI
import WidgetTestSupport

/// Draws `node` into a fresh `width`×`height` buffer.
private func render(_ node: ViewNode, width: Int, height: Int, glyphs: GlyphSet = .unicode) -> CellBuffer {
    var buffer = CellBuffer(width: width, height: height)
    node.draw(into: &buffer, in: buffer.bounds, glyphs: glyphs)
    return buffer
}

/// A small status view: a title, a labelled bar, a divider, a two-column table and a sparkline.
private let status = ViewNode.vstack([
    .text([ViewNode.Span("CPU ", role: .muted, bold: true), ViewNode.Span("83%", role: .positive)]),
    .bar(0.5, role: .positive, label: "50%"),
    .divider,
    .table(ViewNode.Table(
        columns: [ViewNode.Column("Hero"), ViewNode.Column("Exp", alignment: .right, minimum: 6)],
        rows: [[ViewNode.Cell("🐙 Octo", role: .accent), ViewNode.Cell("86463")],
               [ViewNode.Cell("龍之介"), ViewNode.Cell("3121")]])),
    .sparkline([1, 2, 3, 4, 5, 6, 7, 8]),
])

@Suite("ViewNode drawing")
struct ViewNodeDrawingTests {
    @Test("a status view, wide: every node in its place, roles and bold from the spans")
    func wide() {
        let buffer = render(status, width: 20, height: 7)
        expectFrame(buffer, equals: [
            "CPU 83%",
            "████████         50%",
            "────────────────────",
            "Hero             Exp",
            "🐙 Octo        86463",
            "龍之介          3121",
            "▁▂▃▄▅▆▇█",
        ])
        #expect(buffer[0, 0].style == CellStyle(.muted, .bold))
        #expect(buffer[4, 0].style == CellStyle(.positive))
        #expect(buffer[19, 0].style == CellStyle(.muted, .bold), "the row is filled in the first span's style")
        #expect(buffer[0, 1].style == CellStyle(.positive) && buffer[10, 1].style == CellStyle(.muted))
        #expect(buffer[17, 1].style == CellStyle(.positive), "the label is in the bar's role")
        #expect(buffer[0, 2].style == CellStyle(.border))
        #expect(buffer[0, 4].style == CellStyle(.accent) && buffer[0, 3].style == CellStyle(.muted, .bold))
    }

    @Test("a status view, narrow: text and cells cut with …, wide glyphs never split, the label dropped")
    func narrow() {
        expectFrame(render(status, width: 9, height: 7), equals: [
            "CPU 83%",
            "██▌   50%",
            "─────────",
            "H…    Exp",
            "…   86463",
            "…    3121",
            "▁▂▃▄▅▆▇█",
        ])
        // The minimum of the last column leaves the first none: it is not drawn.
        expectFrame(render(status, width: 5, height: 7), equals: [
            "CPU …",
            "▌ 50%",
            "─────",
            "  Exp",
            " 864…",
            " 3121",
            "▄▅▆▇█",
        ])
        // No room for the label, a blank and one bar cell: the label is left out.
        expectFrame(render(.bar(1, label: "100%"), width: 5, height: 1), equals: ["█████"])
        expectFrame(render(status, width: 20, height: 7, glyphs: .ascii), equals: [
            "CPU 83%",
            "########         50%",
            "--------------------",
            "Hero             Exp",
            "🐙 Octo        86463",
            "龍之介          3121",
            "_.,-=+*#",
        ])
    }

    @Test("never draws outside its rectangle and never traps, from 0×0 up, Unicode and ASCII")
    func everySize() {
        for width in 0...12 {
            for height in 0...9 {
                for glyphs in [GlyphSet.unicode, .ascii] {
                    var buffer = CellBuffer(width: width + 4, height: height + 4)
                    let rect = Rect(x: 2, y: 2, width: width, height: height)
                    let before = buffer
                    status.draw(into: &buffer, in: rect, glyphs: glyphs)
                    for y in 0..<buffer.height {
                        for x in 0..<buffer.width where !rect.contains(x: x, y: y) && buffer[x, y] != before[x, y] {
                            Issue.record("drew outside \(rect) at (\(x), \(y))")
                        }
                    }
                }
            }
        }
        expectFrame(render(status, width: 0, height: 0), equals: [])
        expectFrame(render(status, width: 1, height: 1), equals: ["…"])
        expectFrame(render(.text("🐙"), width: 1, height: 1), equals: ["…"])
        expectFrame(render(.text("🐙"), width: 2, height: 1), equals: ["🐙"])
        // A rectangle partly outside the buffer is clipped.
        var buffer = CellBuffer(width: 3, height: 1)
        ViewNode.text("abcdef").draw(into: &buffer, in: Rect(x: -2, y: 0, width: 6, height: 3), glyphs: .unicode)
        expectFrame(buffer, equals: ["cde"])
    }

    @Test("vstack: natural heights first, spacers share the rest, leftovers to the last, so centring leans up")
    func vstackLayout() {
        let centred = ViewNode.vstack([.spacer, .text("a", alignment: .center), .text("b", alignment: .center), .spacer])
        expectFrame(render(centred, width: 3, height: 5), equals: ["", " a", " b", "", ""])
        expectFrame(render(centred, width: 3, height: 4), equals: ["", " a", " b", ""])
        // Too short: the first children keep their rows, the rest are left out.
        expectFrame(render(centred, width: 3, height: 1), equals: [" a"])
        // Gaps between children; a sparkline is flexible like a spacer.
        let gapped = ViewNode.vstack([.text("x"), .sparkline([1, 1]), .text("y")], gap: 1)
        expectFrame(render(gapped, width: 2, height: 7), equals: ["x", "", "██", "██", "██", "", "y"])
    }

    @Test("weights share a stack's length in proportion, whatever the children's natural sizes")
    func weights() {
        let columns = ViewNode.hstack([.bar(1), .bar(1, role: .positive), .bar(1, role: .negative)], weights: [2, 1, 1])
        let buffer = render(columns, width: 10, height: 1)
        expectFrame(buffer, equals: ["██████████"])
        #expect((0..<10).map { buffer[$0, 0].style.role } == [.accent, .accent, .accent, .accent, .accent,
                                                             .positive, .positive, .negative, .negative, .negative])
        let rows = ViewNode.vstack([.text("a"), .text("b")], weights: [1, 3])
        expectFrame(render(rows, width: 1, height: 4), equals: ["a", "b", "", ""])
    }

    @Test("hstack: text takes its width, dividers one column, bars and spacers share the rest")
    func hstackLayout() {
        let row = ViewNode.hstack([.text("CPU"), .divider, .bar(0.5), .text("50%")], gap: 1)
        expectFrame(render(row, width: 16, height: 2), equals: ["CPU │ ███    50%", "    │ ███"])
        // Too narrow: the first children keep what there is (gaps come off first).
        expectFrame(render(row, width: 5, height: 1), equals: ["C…"])
        // An hstack inside a vstack is as tall as its tallest child; a divider runs across the vstack.
        let nested = ViewNode.vstack([.hstack([.text("a"), .text("b\nc")]), .divider, .text("d")])
        expectFrame(render(nested, width: 3, height: 5), equals: ["ab", " c", "───", "d", ""])
    }

    @Test("wrapped text breaks at spaces and inside long words; lines that do not fit end the last row with …")
    func wrapping() {
        let text = ViewNode.text("the quick brown fox jumps", wrap: true)
        expectFrame(render(text, width: 10, height: 3), equals: ["the quick", "brown fox", "jumps"])
        expectFrame(render(text, width: 10, height: 2), equals: ["the quick", "brown fox…"])
        expectFrame(render(text, width: 4, height: 8), equals: ["the", "quic", "k", "brow", "n", "fox", "jump", "s"])
        // CJK wraps by glyph; a 2-column glyph never splits across the edge.
        expectFrame(render(.text("龍之介の長い", wrap: true), width: 5, height: 3), equals: ["龍之", "介の", "長い"])
        // In a vstack, wrapped text is as tall as its wrapped lines.
        let stacked = ViewNode.vstack([.text("aa bb", wrap: true), .text("--")])
        expectFrame(render(stacked, width: 3, height: 4), equals: ["aa", "bb", "--", ""])
        // Alignment applies per line.
        expectFrame(render(.text("ab cd", alignment: .right, wrap: true), width: 4, height: 2), equals: ["  ab", "  cd"])
    }

    @Test("line feeds start lines; other controls are shown inert, as everywhere")
    func sanitised() {
        let hostile = ViewNode.text("a\u{1B}[2J\nb\u{7}\u{202E}c")
        expectFrame(render(hostile, width: 8, height: 3), equals: ["a␛[2J", "b␇�c", ""])
        let buffer = render(.text("\u{1B}]52;c;AAAA\u{7}"), width: 20, height: 1)
        #expect(!buffer.cells.contains { $0.grapheme.unicodeScalars.contains { $0.value < 0x20 } })
    }

    @Test("center alignment leans left; emoji and CJK are measured two columns wide")
    func alignment() {
        expectFrame(render(.text("🐙a", alignment: .center), width: 6, height: 1), equals: ["🐙a"].map { " " + $0 })
        expectFrame(render(.text("龍", alignment: .right), width: 4, height: 1), equals: ["  龍"])
        expectFrame(render(.text("ab", alignment: .center), width: 5, height: 1), equals: [" ab"])
    }

    @Test("table columns: minimums first, the rest shared by the columns without one")
    func tableWidths() {
        let table = ViewNode.Table(columns: [ViewNode.Column("#", minimum: 2), ViewNode.Column("Hero"), ViewNode.Column("Exp", minimum: 5)],
                                   rows: [])
        #expect(table.columnWidths(in: 20) == [2, 11, 5])
        #expect(table.columnWidths(in: 6) == [2, 0, 2])
        #expect(table.columnWidths(in: 0) == [0, 0, 0])
        let all = ViewNode.Table(columns: [ViewNode.Column("a", minimum: 2), ViewNode.Column("b", minimum: 2)], rows: [])
        #expect(all.columnWidths(in: 10) == [5, 4])
        // No titles, no header row.
        let headless = ViewNode.table(ViewNode.Table(columns: [ViewNode.Column(), ViewNode.Column(alignment: .right)],
                                                     rows: [[ViewNode.Cell("a"), ViewNode.Cell("1")], [ViewNode.Cell("b")]]))
        expectFrame(render(headless, width: 5, height: 3), equals: ["a   1", "b", ""])
    }

    @Test("64 levels of alternating stacks draw exactly as the wrapped text they hold")
    func deepestView() {
        let words = Array(repeating: "uptime 200 OK latency 42ms certificate expires in 31 days", count: 40).joined(separator: " ")
        let text = ViewNode.text([ViewNode.Span(words)], wrap: true)
        var view = text
        for level in 1..<ViewNode.maximumDepth {
            view = level % 2 == 1 ? .vstack([view]) : .hstack([view])
        }
        let alone = TextBackend.lines(render(text, width: 37, height: 12))
        #expect(alone.count == 12 && alone[0] == "uptime 200 OK latency 42ms")
        expectFrame(render(view, width: 37, height: 12), equals: alone)
    }
}
