import Testing
@testable import TerminalUI

@Suite("Display width")
struct DisplayWidthTests {
    @Test("ASCII is 1, CJK and emoji are 2, combining marks are 0",
          arguments: [("a", 1), ("漢字", 4), ("🐼", 2), ("🐳", 2), ("e\u{301}", 1), ("", 0), ("hello", 5)])
    func widths(text: String, width: Int) {
        #expect(DisplayWidth.of(text) == width)
    }

    @Test("VS16 is dropped: ❤️ is one column, as wcwidth and the terminal draw it")
    func variationSelector() {
        #expect(DisplayWidth.of("❤\u{FE0F}") == 1)
        #expect(TextNormalizer.normalize("❤\u{FE0F}") == "❤")
    }

    @Test("a ZWJ sequence shows as its first emoji")
    func zwjFamily() {
        let family = "👨\u{200D}👩\u{200D}👧"
        #expect(TextNormalizer.normalize(family) == "👨")
        #expect(DisplayWidth.of(family) == 2)
        #expect(DisplayWidth.of("a\(family)b") == 4)
    }

    @Test("controls are shown inert and counted as the picture drawn")
    func controls() {
        #expect(DisplayWidth.of("a\u{1B}b") == 3)
        #expect(DisplayWidth.of("\u{200B}") == 0)
    }

    @Test("the width does not depend on the process locale")
    func perCodePoint() {
        #expect(DisplayWidth.of("\u{1F43C}" as Unicode.Scalar) == 2)
        #expect(DisplayWidth.of("\u{301}" as Unicode.Scalar) == 0)
        #expect(DisplayWidth.of("\u{9B}" as Unicode.Scalar) == -1)
    }

    @Test("the fallback table agrees with wcwidth on common text")
    func fallback() {
        for scalar in "aZ漢字🐼🐳❤é\u{301}─…".unicodeScalars {
            #expect(DisplayWidth.fallbackWidth(scalar) == DisplayWidth.of(scalar), "U+\(String(scalar.value, radix: 16))")
        }
    }

    @Test("truncation cuts by width and ends with an ellipsis")
    func truncation() {
        #expect(DisplayWidth.truncate("hello world", toWidth: 8) == "hello w…")
        #expect(DisplayWidth.truncate("hello world", toWidth: 8, ellipsis: "...") == "hello...")
        #expect(DisplayWidth.truncate("short", toWidth: 5) == "short")
        #expect(DisplayWidth.truncate("漢字漢字", toWidth: 6) == "漢字…")
        #expect(DisplayWidth.truncate("漢字漢字", toWidth: 4) == "漢…")
        #expect(DisplayWidth.truncate("🐼🐼🐼", toWidth: 1) == "…")
        #expect(DisplayWidth.truncate("abc", toWidth: 2, ellipsis: "...") == "..")
        #expect(DisplayWidth.truncate("abc", toWidth: 0) == "")
    }
}
