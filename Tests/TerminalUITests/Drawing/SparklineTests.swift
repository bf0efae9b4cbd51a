import Testing
import TerminalUI
import WidgetTestSupport

@Suite("Sparkline")
struct SparklineTests {
    @Test("maps values to the eight levels relative to the maximum")
    func levels() {
        var buffer = CellBuffer(width: 9, height: 1)
        Sparkline(values: [0, 1, 2, 3, 4, 5, 6, 7, 8]).draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: [" ▁▂▃▄▅▆▇█"])
    }

    @Test("shows the most recent values that fit")
    func recent() {
        var buffer = CellBuffer(width: 3, height: 1)
        Sparkline(values: [8, 8, 8, 2, 4, 8], maximum: 8).draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: ["▂▄█"])
    }

    @Test("grows upwards in a taller rectangle")
    func tall() {
        var buffer = CellBuffer(width: 3, height: 2)
        Sparkline(values: [1, 2, 4], maximum: 4).draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: ["  █", "▄██"])
    }

    @Test("uses ASCII levels without Unicode and survives odd values")
    func asciiAndOdd() {
        var buffer = CellBuffer(width: 4, height: 1)
        Sparkline(values: [.nan, -1, 0.001, 1], glyphs: .ascii).draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: ["  _#"])
    }

    @Test("is safe at 0×0 and 1×1 and with no values")
    func tiny() {
        var buffer = CellBuffer(width: 2, height: 1)
        Sparkline(values: [1, 2]).draw(into: &buffer, in: .zero)
        Sparkline(values: []).draw(into: &buffer, in: buffer.bounds)
        expectFrame(buffer, equals: [""])
        Sparkline(values: [1, 2]).draw(into: &buffer, in: Rect(x: 0, y: 0, width: 1, height: 1))
        expectFrame(buffer, equals: ["█"])
    }
}
