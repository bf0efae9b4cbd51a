import Testing
import TerminalUI
import WidgetTestSupport

@Suite("Box")
struct BoxTests {
    @Test("draws a Unicode border with the title in the top edge")
    func unicode() {
        var buffer = CellBuffer(width: 12, height: 3)
        Box(title: "Clock").draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: [
            "┌ Clock ───┐",
            "│          │",
            "└──────────┘",
        ])
        #expect(buffer[0, 0].style.role == .border)
        #expect(buffer[2, 0].style.role == .title)
    }

    @Test("uses +-| when the locale is not UTF-8, and the focused role when focused")
    func asciiFocused() {
        var buffer = CellBuffer(width: 8, height: 3)
        Box(title: "Leaderboard", focused: true, glyphs: .ascii).draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: [
            "+ L... +",
            "|      |",
            "+------+",
        ])
        #expect(buffer[0, 0].style.role == .borderFocused)
    }

    @Test("truncates a long title and keeps a wide glyph off the border")
    func wideTitle() {
        var buffer = CellBuffer(width: 9, height: 2)
        Box(title: "🐼🐼🐼🐼").draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: [
            "┌ 🐼🐼… ┐",
            "└───────┘",
        ])
        var odd = CellBuffer(width: 8, height: 2)
        Box(title: "漢字漢字").draw(into: &odd, in: odd.bounds)
        expectFrame(odd, equals: [
            "┌ 漢… ─┐",
            "└──────┘",
        ])
    }

    @Test("is safe at 0×0 and 1×1 and draws nothing below 2×2")
    func tiny() {
        for size in [(0, 0), (1, 1), (1, 5), (5, 1)] {
            var buffer = CellBuffer(width: 6, height: 6)
            Box(title: "x").draw(into: &buffer, in: Rect(x: 2, y: 2, width: size.0, height: size.1))
            expectFrame(buffer, equals: Array(repeating: "", count: 6))
        }
        var small = CellBuffer(width: 2, height: 2)
        Box(title: "title").draw(into: &small, in: small.bounds)
        expectFrame(small, equals: ["┌┐", "└┘"])
    }

    @Test("stays inside a rectangle that hangs over the buffer's edge")
    func clipped() {
        var buffer = CellBuffer(width: 4, height: 2)
        Box(title: "abc").draw(into: &buffer, in: Rect(x: 1, y: 0, width: 10, height: 5))
        expectFrame(buffer, equals: [" ┌ a", " │"])
    }
}
