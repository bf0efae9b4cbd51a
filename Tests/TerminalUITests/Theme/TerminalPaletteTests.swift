import Testing
import TerminalUI

private let sample = Theme(name: "Sample", colors: [
    .background: .terminalDefault, .foreground: .rgb(0xd0, 0xd0, 0xd0), .accent: .rgb(0x5f, 0xaf, 0xff),
    .negative: .rgb(0xff, 0x5f, 0x5f), .muted: .indexed(244), .warning: .indexed(11),
    .statusBar: .rgb(0x30, 0x30, 0x30), .statusText: .rgb(0xd0, 0xd0, 0xd0),
], attributes: [.title: .bold])

@Suite("Colour mapping")
struct TerminalPaletteTests {
    @Test("direct colour keeps RGB, and only a *-direct terminfo gets it")
    func direct() {
        let palette = TerminalPalette(theme: sample, capability: .direct)
        #expect(palette[.accent].foreground == .rgb(0x5f, 0xaf, 0xff))
        #expect(palette[.muted].foreground == .rgb(128, 128, 128))
        #expect(palette[.warning].foreground == .indexed(11))
        #expect(ColorCapability.detect(terminalName: "xterm-direct", colors: 0x1000000, environment: [:]) == .direct)
        #expect(ColorCapability.detect(terminalName: "xterm-256color", colors: 256, environment: [:]) == .palette256)
        #expect(ColorCapability.detect(terminalName: "tmux-256color", colors: 256, environment: ["COLORTERM": "truecolor"]) == .palette256)
    }

    @Test("256 colours: nearest of the xterm cube and greys")
    func palette256() {
        let palette = TerminalPalette(theme: sample, capability: .palette256)
        #expect(palette[.accent].foreground == .indexed(75))
        #expect(palette[.foreground].foreground == .indexed(252))
        #expect(palette[.statusBar].background == .indexed(236))
        #expect(palette[.negative].foreground == .indexed(203))
        #expect(palette[.muted].foreground == .indexed(244))
        #expect(palette[.accent].background == .terminalDefault)
    }

    @Test("16 and 8 colours: nearest ANSI colour, bright indexes folded in 8")
    func ansi() {
        let sixteen = TerminalPalette(theme: sample, capability: .ansi16)
        #expect(sixteen[.negative].foreground == .indexed(9))
        #expect(sixteen[.muted].foreground == .indexed(8))
        #expect(sixteen[.warning].foreground == .indexed(11))
        let eight = TerminalPalette(theme: sample, capability: .ansi8)
        #expect(eight[.negative].foreground == .indexed(1))
        #expect(eight[.warning].foreground == .indexed(3))
        #expect(eight[.statusBar] == RoleColors(foreground: .indexed(7), background: .indexed(0), attributes: []))
        #expect(ColorCapability.detect(terminalName: "xterm", colors: 8, environment: [:]) == .ansi8)
        #expect(ColorCapability.detect(terminalName: "xterm-16color", colors: 16, environment: [:]) == .ansi16)
    }

    @Test("no colours or NO_COLOR: attributes only, the mono theme's added")
    func none() {
        #expect(ColorCapability.detect(terminalName: "xterm-256color", colors: 256, environment: ["NO_COLOR": "1"]) == .none)
        #expect(ColorCapability.detect(terminalName: "xterm-256color", colors: 256, environment: ["NO_COLOR": ""]) == .palette256)
        #expect(ColorCapability.detect(terminalName: "vt100", colors: -1, environment: [:]) == .none)
        let palette = TerminalPalette(theme: sample, capability: .none)
        for role in StyleRole.allCases {
            #expect(palette[role].foreground == .terminalDefault)
            #expect(palette[role].background == .terminalDefault)
        }
        #expect(palette[.statusBar].attributes == .reverse)
        #expect(palette[.borderFocused].attributes == .bold)
        #expect(palette[.title].attributes == .bold)
        #expect(palette[.muted].attributes == .dim)
    }

    @Test("status roles pair statusText on statusBar; cell attributes add to the role's")
    func pairing() {
        let palette = TerminalPalette(theme: sample, capability: .direct)
        #expect(palette[.statusText].background == .rgb(0x30, 0x30, 0x30))
        #expect(palette[.statusText].foreground == .rgb(0xd0, 0xd0, 0xd0))
        #expect(palette.resolve(CellStyle(.title, .underline)).attributes == [.bold, .underline])
    }

    @Test("curses colour numbers and SGR parameters")
    func numbers() {
        #expect(TerminalColor.terminalDefault.cursesNumber(direct: false) == -1)
        #expect(TerminalColor.rgb(0x5f, 0xaf, 0xff).cursesNumber(direct: true) == 0x5fafff)
        #expect(TerminalColor.rgb(0, 0, 3).cursesNumber(direct: true) == 8)
        #expect(TerminalColor.indexed(3).sgrParameters(background: false) == "33")
        #expect(TerminalColor.indexed(9).sgrParameters(background: true) == "101")
        #expect(TerminalColor.indexed(200).sgrParameters(background: false) == "38;5;200")
        #expect(TerminalColor.rgb(1, 2, 3).sgrParameters(background: true) == "48;2;1;2;3")
    }
}
