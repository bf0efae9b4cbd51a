import Testing
import TerminalUI
import WidgetTestSupport

@Suite("Bar")
struct BarTests {
    @Test("fills with eighth-block precision in Unicode")
    func eighths() {
        var buffer = CellBuffer(width: 10, height: 4)
        Bar(fraction: 0.5).draw(into: &buffer, in: Rect(x: 0, y: 0, width: 10, height: 1))
        Bar(fraction: 0.14).draw(into: &buffer, in: Rect(x: 0, y: 1, width: 10, height: 1))
        Bar(fraction: 0.99).draw(into: &buffer, in: Rect(x: 0, y: 2, width: 10, height: 1))
        Bar(fraction: 1).draw(into: &buffer, in: Rect(x: 0, y: 3, width: 10, height: 1))
        expectFrame(buffer, equals: ["█████", "█▍", "█████████▉", "██████████"])
        #expect(buffer[0, 0].style.role == .accent)
        #expect(buffer[9, 0].style.role == .muted)
    }

    @Test("uses whole # cells in ASCII")
    func ascii() {
        var buffer = CellBuffer(width: 10, height: 1)
        Bar(fraction: 0.67, glyphs: .ascii).draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: ["#######"])
    }

    @Test("clamps fractions outside 0…1 and NaN")
    func clamping() {
        #expect(Bar(fraction: -3).cells(width: 3).allSatisfy { !$0.filled })
        #expect(Bar(fraction: .nan).cells(width: 3).allSatisfy { !$0.filled })
        #expect(Bar(fraction: 7).cells(width: 3).map(\.glyph) == ["█", "█", "█"])
    }

    @Test("is safe at 0×0 and 1×1")
    func tiny() {
        var buffer = CellBuffer(width: 2, height: 1)
        Bar(fraction: 1).draw(into: &buffer, in: .zero)
        expectFrame(buffer, equals: [""])
        Bar(fraction: 0.5).draw(into: &buffer, in: Rect(x: 1, y: 0, width: 1, height: 1))
        expectFrame(buffer, equals: [" ▌"])
    }
}
