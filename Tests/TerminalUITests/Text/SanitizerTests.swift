import Testing
import TerminalUI

@Suite("Sanitizer")
struct SanitizerTests {
    @Test("ESC [ 2 J is shown as text, not sent")
    func clearScreen() {
        #expect(Sanitizer.sanitize("a\u{1B}[2Jb") == "a␛[2Jb")
    }

    @Test("OSC 52 clipboard write is shown inert")
    func osc52() {
        let osc = "\u{1B}]52;c;aGVsbG8=\u{07}"
        #expect(Sanitizer.sanitize(osc) == "␛]52;c;aGVsbG8=␇")
        let st = "\u{1B}]52;c;eA==\u{1B}\\"
        #expect(Sanitizer.sanitize(st) == "␛]52;c;eA==␛\\")
    }

    @Test("C1 controls, including the one-byte CSI U+009B, become U+FFFD")
    func c1() {
        #expect(Sanitizer.sanitize("\u{9B}31m") == "\u{FFFD}31m")
        #expect(Sanitizer.sanitize("\u{90}q\u{9C}") == "\u{FFFD}q\u{FFFD}")
    }

    @Test("bidi overrides and isolates cannot reorder the screen")
    func bidi() {
        #expect(Sanitizer.sanitize("abc\u{202E}fed") == "abc\u{FFFD}fed")
        #expect(Sanitizer.sanitize("\u{2066}x\u{2069}") == "\u{FFFD}x\u{FFFD}")
    }

    @Test("DEL, newline and NUL are visible; tab is a space; printable text is untouched")
    func others() {
        #expect(Sanitizer.sanitize("a\u{7F}b\nc\u{0}") == "a␡b␊c␀")
        #expect(Sanitizer.sanitize("a\tb") == "a b")
        #expect(Sanitizer.sanitize("Power Panda 🐼 漢字 é") == "Power Panda 🐼 漢字 é")
    }

    @Test("no unsafe scalar survives sanitising any control or format character")
    func exhaustive() {
        let unsafe = Array(0...0x1F) + Array(0x7F...0x9F) + [0x202A, 0x202B, 0x202C, 0x202D, 0x202E, 0x2066, 0x2067, 0x2068, 0x2069]
        let text = String(String.UnicodeScalarView(unsafe.compactMap(Unicode.Scalar.init)))
        let out = Sanitizer.sanitize(text)
        for scalar in out.unicodeScalars {
            #expect(Sanitizer.replacement(for: scalar) == nil, "U+\(String(scalar.value, radix: 16)) survived")
        }
        #expect(out.unicodeScalars.count == unsafe.count)
    }
}
