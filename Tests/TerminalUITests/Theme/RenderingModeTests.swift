import Testing
import TerminalUI
import WidgetTestSupport

/// A panel as a widget draws one: a title, the leader marked accentable, a calm and a
/// critical value, a bar and a sparkline.
private let view = ViewNode.vstack([
    .text([ViewNode.Span("Board ", role: .muted), { var s = ViewNode.Span("Octo", role: .accent, bold: true); s.accentable = true; return s }()]),
    .text([ViewNode.Span("ok", role: .positive), ViewNode.Span(" "), ViewNode.Span("low", role: .negative)]),
    .bar(0.5, role: .negative),
    .sparkline([1, 4, 8], role: .accent).accentable(),
])

private func frame() -> CellBuffer {
    var buffer = CellBuffer(width: 12, height: 6)
    Box(title: "P", glyphs: .unicode).draw(into: &buffer, in: buffer.bounds)
    view.draw(into: &buffer, in: Box.inner(of: buffer.bounds), glyphs: .unicode)
    return buffer
}

/// How the cell at (x, y) of `buffer` is drawn with `palette`.
private func look(_ buffer: CellBuffer, _ x: Int, _ y: Int, _ palette: TerminalPalette) -> RoleColors {
    palette.resolve(buffer[x, y].style)
}

@Suite("Rendering modes: fullColor, accented, mono")
struct RenderingModeTests {
    @Test("the terminal decides: mono with NO_COLOR or under 8 colours, accented with 8, fullColor from 16")
    func detection() {
        func mode(_ term: String, _ colors: Int, _ environment: [String: String] = [:]) -> RenderingMode {
            RenderingMode.detect(capability: ColorCapability.detect(terminalName: term, colors: colors, environment: environment))
        }
        #expect(mode("xterm-256color", 256, ["NO_COLOR": "1"]) == .mono)
        #expect(mode("vt100", -1) == .mono)
        #expect(mode("xterm-mono", 2) == .mono)
        #expect(mode("xterm", 8) == .accented)
        #expect(mode("xterm-16color", 16) == .fullColor)
        #expect(mode("tmux-256color", 256) == .fullColor)
        #expect(mode("xterm-direct", 0x1000000) == .fullColor)
    }

    @Test("fullColor is the palette as it was: accentable changes nothing")
    func fullColor() {
        let before = TerminalPalette(theme: .default, capability: .palette256)
        let full = TerminalPalette(theme: .default, capability: .palette256, mode: .fullColor)
        for role in StyleRole.allCases {
            #expect(full[role] == before[role])
            #expect(full.resolve(CellStyle(role, accentable: true)) == before.resolve(CellStyle(role)))
        }
    }

    @Test("accented: accentable content in the theme's accent, everything else in its foreground, roles apart by attributes")
    func accented() {
        let palette = TerminalPalette(theme: .default, capability: .palette256, mode: .accented)
        let accent = TerminalPalette.map(Theme.default.color(.accent), to: .palette256)
        let neutral = TerminalPalette.map(Theme.default.color(.foreground), to: .palette256)
        for role in StyleRole.allCases {
            #expect(palette[role].foreground == neutral, "\(role) is the neutral tone")
            #expect(palette[accentable: role].foreground == accent, "accentable \(role) is the accent tone")
            #expect(palette[role].attributes.isSuperset(of: Theme.mono.attributes(role)), "\(role) keeps the mono theme's emphasis")
        }
        #expect(palette[.negative].attributes != palette[.positive].attributes, "critical and calm still differ")
        let buffer = frame()
        #expect(look(buffer, 7, 1, palette).foreground == accent, "the accentable span")
        #expect(look(buffer, 1, 1, palette).foreground == neutral, "the label beside it")
        #expect((1...3).allSatisfy { look(buffer, $0, 4, palette).foreground == accent }, "the accentable sparkline, blanks too")
        #expect(look(buffer, 0, 0, palette).foreground == neutral, "the border")
        expectSnapshot(TextBackend.ansiLines(buffer, palette: palette).joined(separator: "\n") + "\n", named: "mode-accented")
    }

    @Test("mono: no colour on a colour terminal, emphasis by attributes only; what colour said survives")
    func mono() {
        let palette = TerminalPalette(theme: .default, capability: .palette256, mode: .mono)
        #expect(palette.capability == .none)
        let buffer = frame()
        for y in 0..<buffer.height {
            for x in 0..<buffer.width {
                #expect(look(buffer, x, y, palette).foreground == .terminalDefault)
                #expect(look(buffer, x, y, palette).background == .terminalDefault)
            }
        }
        let ansi = TextBackend.ansiLines(buffer, palette: palette).joined(separator: "\n")
        #expect(!ansi.contains("38;") && !ansi.contains("48;") && !ansi.contains("[3") && !ansi.contains("[4"), "no colour SGR")
        // "ok" (positive) and "low" (negative) differ without colour; the muted label is dim.
        #expect(look(buffer, 1, 2, palette).attributes != look(buffer, 4, 2, palette).attributes)
        #expect(look(buffer, 1, 1, palette).attributes.contains(.dim))
        // The bar's fill and the sparkline's levels are glyphs, not colours.
        expectFrame(buffer, equals: [
            "┌ P ───────┐",
            "│Board Octo│",
            "│ok low    │",
            "│█████     │",
            "│▁▄█       │",
            "└──────────┘",
        ])
        expectSnapshot(ansi + "\n", named: "mode-mono")
    }

    @Test("every built-in theme shows each mode", arguments: Theme.builtinNames)
    func themes(name: String) throws {
        let theme = try #require(Theme.builtin(named: name))
        for mode in RenderingMode.allCases {
            let palette = TerminalPalette(theme: theme, capability: .palette256, mode: mode)
            expectSnapshot(TextBackend.ansiLines(frame(), palette: palette).joined(separator: "\n") + "\n",
                           named: "theme-\(name)-\(mode.rawValue)")
        }
    }

    @Test("an alert's border is accentable; the double and heavy glyph sets mark it where colour cannot")
    func alertBorder() {
        var buffer = CellBuffer(width: 6, height: 3)
        Box(title: nil, glyphs: GlyphSet.unicode.heavy, role: .negative).draw(into: &buffer, in: buffer.bounds)
        #expect(buffer[0, 0].style.accentable && buffer[0, 0].style.role == .negative)
        expectFrame(buffer, equals: ["┏━━━━┓", "┃    ┃", "┗━━━━┛"])
        var ascii = CellBuffer(width: 4, height: 3)
        Box(glyphs: GlyphSet.ascii.heavy, role: .negative).draw(into: &ascii, in: ascii.bounds)
        expectFrame(ascii, equals: ["#==#", "#  #", "#==#"])
        Box(glyphs: GlyphSet.unicode.double, role: .warning).draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: ["╔════╗", "║    ║", "╚════╝"])
        Box(glyphs: GlyphSet.ascii.double, role: .warning).draw(into: &ascii, in: ascii.bounds)
        expectFrame(ascii, equals: ["+==+", "|  |", "+==+"])
        var calm = CellBuffer(width: 4, height: 3)
        Box(glyphs: .unicode).draw(into: &calm, in: calm.bounds)
        #expect(!calm[0, 0].style.accentable)
    }
}
