import Testing
import TerminalUI
import WidgetTestSupport

@Suite("TextLine")
struct TextLineTests {
    @Test("aligns left, center and right")
    func alignment() {
        var buffer = CellBuffer(width: 9, height: 3)
        TextLine("abc").draw(into: &buffer, in: Rect(x: 0, y: 0, width: 9, height: 1))
        TextLine("abc", alignment: .center).draw(into: &buffer, in: Rect(x: 0, y: 1, width: 9, height: 1))
        TextLine("🐼b", alignment: .right).draw(into: &buffer, in: Rect(x: 0, y: 2, width: 9, height: 1))
        expectFrame(buffer, equals: ["abc", "   abc", "      🐼b"])
    }

    @Test("truncates with … or ... and fills its row in its style")
    func truncation() {
        var buffer = CellBuffer(width: 8, height: 2)
        TextLine("Power Panda", style: CellStyle(.statusText)).draw(into: &buffer, in: Rect(x: 0, y: 0, width: 8, height: 1))
        TextLine("Power Panda", glyphs: .ascii).draw(into: &buffer, in: Rect(x: 0, y: 1, width: 8, height: 1))
        expectFrame(buffer, equals: ["Power P…", "Power..."])
        #expect(buffer[7, 0].style.role == .statusText)
    }

    @Test("draws only the first row and never past its rectangle")
    func confined() {
        var buffer = CellBuffer(width: 6, height: 2)
        buffer.fill(buffer.bounds, with: Cell("."))
        TextLine("漢字漢字").draw(into: &buffer, in: Rect(x: 1, y: 0, width: 3, height: 2))
        expectFrame(buffer, equals: [".漢…..", "......"])
    }

    @Test("is safe at 0×0 and 1×1")
    func tiny() {
        var buffer = CellBuffer(width: 3, height: 1)
        TextLine("hello").draw(into: &buffer, in: Rect(x: 1, y: 0, width: 0, height: 0))
        expectFrame(buffer, equals: [""])
        TextLine("hello").draw(into: &buffer, in: Rect(x: 1, y: 0, width: 1, height: 1))
        expectFrame(buffer, equals: [" …"])
        TextLine("🐼").draw(into: &buffer, in: Rect(x: 0, y: 0, width: 1, height: 1))
        expectFrame(buffer, equals: ["……"])
    }
}
