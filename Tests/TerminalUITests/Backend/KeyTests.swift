import Testing
import TerminalUI

@Suite("Keys and terminal facts")
struct KeyTests {
    @Test("control bytes decode to named keys", arguments: [
        (UInt32(3), Key.ctrlC), (9, .tab), (13, .enter), (10, .enter), (27, .escape), (127, .backspace),
        (12, .control("l")), (18, .control("r")),
    ])
    func controls(value: UInt32, key: Key) {
        #expect(Key(character: value) == key)
    }

    @Test("printable characters decode as themselves; C1 controls never do")
    func printable() {
        #expect(Key(character: 0x72) == .character("r"))
        #expect(Key(character: 0x52) == .character("R"))
        #expect(Key(character: 0x1F43C) == .character("🐼"))
        #expect(Key(character: 0x9B) == .unknown(0x9B))
    }

    @Test("the glyph set follows LC_ALL, LC_CTYPE, LANG like setlocale")
    func glyphSetFromLocale() {
        #expect(GlyphSet.forLocale(environment: ["LANG": "en_US.UTF-8"]) == .unicode)
        #expect(GlyphSet.forLocale(environment: ["LC_ALL": "C", "LANG": "C.UTF-8"]) == .ascii)
        #expect(GlyphSet.forLocale(environment: ["LC_ALL": "", "LC_CTYPE": "C.utf8"]) == .unicode)
        #expect(GlyphSet.forLocale(environment: [:]) == .ascii)
    }

    @Test("sizes parse from COLSxROWS")
    func sizes() {
        #expect(TerminalSize(parsing: "100x30") == TerminalSize(columns: 100, rows: 30))
        #expect(TerminalSize(parsing: "80X24")?.description == "80x24")
        #expect(TerminalSize(parsing: "0x10") == nil)
        #expect(TerminalSize(parsing: "80") == nil)
    }

    @Test("terminal errors tell the user what to do")
    func errors() {
        #expect(TerminalError.unknownTerminalType("foo").description
            == "unknown terminal type 'foo': set TERM to a terminal your system knows, e.g. xterm-256color")
    }
}
