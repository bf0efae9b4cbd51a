import Testing
import TerminalUI
import WidgetTestSupport

/// A small dashboard using every primitive, roles and wide text.
private func sampleFrame(glyphs: GlyphSet = .unicode) -> CellBuffer {
    var frame = CellBuffer(width: 44, height: 12)
    let panels = Rect(x: 0, y: 0, width: 44, height: 11).columns(weights: [3, 2])
    Box(title: "Ranger Leaderboard", focused: true, glyphs: glyphs).draw(into: &frame, in: panels[0])
    let board = Box.inner(of: panels[0])
    Table(columns: [TableColumn("#", width: .fixed(1), alignment: .right), TableColumn("Hero"),
                    TableColumn("Exp", width: .fixed(5), alignment: .right)],
          rows: [["1", "🐙 Octo", TableCell("86463", style: CellStyle(.positive))],
                 ["2", "🐳 Spouty", "20000"],
                 ["3", "🐼 Power Panda", TableCell("600", style: CellStyle(.negative))]],
          glyphs: glyphs).draw(into: &frame, in: board.splitTop(4).top)
    Bar(fraction: 0.14, style: CellStyle(.negative), glyphs: glyphs).draw(into: &frame, in: Rect(x: board.x, y: board.y + 5, width: board.width, height: 1))
    Sparkline(values: [3, 5, 2, 8, 6, 7, 4, 8], glyphs: glyphs).draw(into: &frame, in: Rect(x: board.x, y: board.y + 7, width: board.width, height: 1))
    Box(title: "Spouty ❤️", glyphs: glyphs).draw(into: &frame, in: panels[1])
    let hero = Box.inner(of: panels[1])
    TextLine("漢字 e\u{301} 👨‍👩‍👧", glyphs: glyphs).draw(into: &frame, in: hero)
    TextLine("level 50", alignment: .right, style: CellStyle(.accent), glyphs: glyphs).draw(into: &frame, in: hero.splitTop(1).rest)
    TextLine("stale 5m", style: CellStyle(.stale), glyphs: glyphs).draw(into: &frame, in: hero.splitTop(3).rest)
    TextLine("retry in 3s", alignment: .center, style: CellStyle(.warning, .underline), glyphs: glyphs).draw(into: &frame, in: hero.splitTop(4).rest)
    TextLine(" r reload  R reload all  q quit", style: CellStyle(.statusText), glyphs: glyphs)
        .draw(into: &frame, in: Rect(x: 0, y: 11, width: 44, height: 1))
    return frame
}

@Suite("TextBackend")
struct TextBackendTests {
    @Test("renders a whole dashboard frame as plain text")
    func plainFrame() {
        let frame = sampleFrame()
        expectFrame(frame, equals: [
            "┌ Ranger Leaderboard ─────┐┌ Spouty ❤ ─────┐",
            "│# Hero                Exp││漢字 é 👨      │",
            "│1 🐙 Octo           86463││       level 50│",
            "│2 🐳 Spouty         20000││               │",
            "│3 🐼 Power Panda      600││stale 5m       │",
            "│                         ││  retry in 3s  │",
            "│███▌                     ││               │",
            "│                         ││               │",
            "│▃▅▂█▆▇▄█                 ││               │",
            "│                         ││               │",
            "└─────────────────────────┘└───────────────┘",
            " r reload  R reload all  q quit",
        ])
        expectSnapshot(TextBackend.lines(frame).joined(separator: "\n") + "\n", named: "sample-unicode")
    }

    @Test("renders the same frame in ASCII")
    func asciiFrame() {
        expectSnapshot(TextBackend.lines(sampleFrame(glyphs: .ascii)).joined(separator: "\n") + "\n", named: "sample-ascii")
    }

    @Test("every built-in theme renders the sample frame with ANSI colours", arguments: Theme.builtinNames)
    func themedFrame(name: String) throws {
        let theme = try #require(Theme.builtin(named: name))
        let backend = TextBackend(size: TerminalSize(columns: 44, rows: 12),
                                  palette: TerminalPalette(theme: theme, capability: .palette256))
        backend.present(sampleFrame())
        expectSnapshot(backend.render(), named: "theme-\(name)")
    }

    @Test("NO_COLOR output has attributes and no colour codes")
    func noColor() {
        let backend = TextBackend(size: TerminalSize(columns: 44, rows: 12),
                                  palette: TerminalPalette(theme: .default, capability: .none))
        backend.present(sampleFrame())
        let text = backend.render()
        #expect(!text.contains("38;") && !text.contains("48;") && !text.contains("[3") && !text.contains(";3"))
        #expect(text.contains("\u{1B}[0;7m"))
        expectSnapshot(text, named: "no-color")
    }

    @Test("wide glyphs are written once and trailing blanks trimmed")
    func lines() {
        var buffer = CellBuffer(width: 6, height: 2)
        buffer.write("🐼x", x: 0, y: 0)
        #expect(TextBackend.lines(buffer) == ["🐼x", ""])
        let backend = TextBackend(size: TerminalSize(columns: 6, rows: 2))
        #expect(backend.render() == "")
        backend.present(buffer)
        #expect(backend.render() == "🐼x\n\n")
    }

    @Test("SGR output changes style only where it changes and resets at line end")
    func sgr() {
        var buffer = CellBuffer(width: 4, height: 1)
        buffer.write("ab", x: 0, y: 0, style: CellStyle(.negative, .bold))
        buffer.write("c", x: 2, y: 0)
        let palette = TerminalPalette(theme: .default, capability: .ansi16)
        #expect(TextBackend.ansiLines(buffer, palette: palette) == ["\u{1B}[0;1;91mab\u{1B}[0;37mc\u{1B}[0m"])
    }
}
