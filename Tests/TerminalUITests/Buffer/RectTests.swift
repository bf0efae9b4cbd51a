import Testing
import TerminalUI

@Suite("Rect")
struct RectTests {
    @Test("intersection keeps only shared cells and is empty when apart")
    func intersection() {
        let a = Rect(x: 0, y: 0, width: 10, height: 5)
        #expect(a.intersection(Rect(x: 8, y: 3, width: 10, height: 10)) == Rect(x: 8, y: 3, width: 2, height: 2))
        #expect(a.intersection(Rect(x: 20, y: 0, width: 3, height: 3)).isEmpty)
    }

    @Test("insets clamp to an empty rectangle instead of going negative")
    func insets() {
        #expect(Rect(x: 2, y: 2, width: 10, height: 4).inset(by: 1) == Rect(x: 3, y: 3, width: 8, height: 2))
        let tiny = Rect(x: 0, y: 0, width: 1, height: 1).inset(by: 1)
        #expect(tiny.isEmpty)
        #expect(tiny.width == 0 && tiny.height == 0)
    }

    @Test("splits and weighted columns tile the rectangle exactly")
    func splits() {
        let r = Rect(x: 1, y: 1, width: 10, height: 3)
        let (top, rest) = r.splitTop(1)
        #expect(top == Rect(x: 1, y: 1, width: 10, height: 1))
        #expect(rest == Rect(x: 1, y: 2, width: 10, height: 2))
        let (left, right) = r.splitLeft(40)
        #expect(left == r && right.isEmpty)
        let parts = r.columns(weights: [1, 1, 1])
        #expect(parts.map(\.width) == [4, 3, 3])
        #expect(parts.map(\.x) == [1, 5, 8])
        #expect(r.rows(weights: [0, 1]).map(\.height) == [0, 3])
    }
}
