import Testing
import TerminalUI
import WidgetTestSupport

@Suite("CellBuffer")
struct CellBufferTests {
    @Test("ASCII, CJK and emoji take one and two cells")
    func wideGlyphs() {
        var buffer = CellBuffer(width: 12, height: 2)
        let end = buffer.write("a漢字🐼b", x: 0, y: 0)
        #expect(end == 8)
        #expect(buffer[1, 0].grapheme == "漢")
        #expect(buffer[2, 0].isContinuation)
        #expect(buffer[5, 0].grapheme == "🐼")
        #expect(buffer[6, 0].isContinuation)
        buffer.write("e\u{301}x", x: 0, y: 1)
        #expect(buffer[0, 1].grapheme == "e\u{301}")
        expectFrame(buffer, equals: ["a漢字🐼b", "éx"])
    }

    @Test("redacting turns every glyph into ▒ (wide ones into two) in the placeholder role; spaces stay")
    func redaction() {
        var buffer = CellBuffer(width: 10, height: 2)
        buffer.write("a 漢🐼 b", x: 0, y: 0, style: CellStyle(.accent))
        buffer.write("xy漢z", x: 0, y: 1)
        buffer.redact(Rect(x: 0, y: 0, width: 10, height: 1), glyphs: .unicode)
        buffer.redact(Rect(x: 3, y: 1, width: 10, height: 1), glyphs: .ascii)
        expectFrame(buffer, equals: ["▒ ▒▒▒▒ ▒", "xy ##"])
        #expect(buffer[0, 0].style.role == .placeholder)
        #expect(buffer[1, 0].style.role == .accent)
        #expect(!buffer[2, 1].isContinuation, "the wide glyph cut by the area's left edge leaves a whole space")
        // Degenerate areas: nothing to redact, nothing broken. The buffer above keeps its cells
        // (its (0,0) is redacted already; (8,1)… is blank or outside), and a blank buffer stays blank.
        let before = buffer
        for size in [Rect.zero, Rect(x: 0, y: 0, width: 1, height: 1), Rect(x: 8, y: 1, width: 9, height: 9)] {
            var tiny = CellBuffer(width: size.width, height: size.height)
            tiny.redact(size, glyphs: .unicode)
            #expect(tiny == CellBuffer(width: size.width, height: size.height), "\(size)")
            buffer.redact(size, glyphs: .unicode)
            #expect(buffer == before, "\(size)")
        }
    }

    @Test("a wide glyph that would cross the clip's right edge becomes a space")
    func wideAtRightEdge() {
        var buffer = CellBuffer(width: 6, height: 1)
        buffer.fill(buffer.bounds, with: Cell("."))
        buffer.write("ab🐳", x: 1, y: 0, clip: Rect(x: 1, y: 0, width: 3, height: 1))
        expectFrame(buffer, equals: [".ab .."])
        #expect(!buffer[4, 0].isContinuation)
    }

    @Test("a wide glyph cut by the clip's left edge leaves a space")
    func wideAtLeftEdge() {
        var buffer = CellBuffer(width: 5, height: 1)
        buffer.write("🐳xy", x: 0, y: 0, clip: Rect(x: 1, y: 0, width: 4, height: 1))
        expectFrame(buffer, equals: ["  xy"])
    }

    @Test("overwriting half of a wide glyph repairs the other half")
    func orphanRepair() {
        var buffer = CellBuffer(width: 6, height: 2)
        buffer.write("🐼🐼", x: 0, y: 0)
        buffer.write("x", x: 1, y: 0)
        expectFrame(buffer, equals: [" x🐼", ""])
        buffer.write("y", x: 2, y: 0)
        expectFrame(buffer, equals: [" xy", ""])
        buffer.write("漢", x: 3, y: 1)
        buffer.write("字", x: 2, y: 1)
        expectFrame(buffer, equals: [" xy", "  字"])
        #expect(!buffer[4, 1].isContinuation)
    }

    @Test("a wide glyph in the last column of the buffer becomes a space")
    func wideAtBufferEdge() {
        var buffer = CellBuffer(width: 3, height: 1)
        buffer[2, 0] = Cell("🐼")
        buffer.write("ab漢", x: 0, y: 0)
        expectFrame(buffer, equals: ["ab"])
        #expect(buffer[2, 0].grapheme == " ")
    }

    @Test("writes outside the buffer and into empty buffers are ignored")
    func outOfRange() {
        var empty = CellBuffer(width: 0, height: 0)
        empty.write("hello", x: 0, y: 0)
        empty.fill(Rect(x: 0, y: 0, width: 3, height: 3), with: Cell("#"))
        #expect(empty.cells.isEmpty)
        var one = CellBuffer(width: 1, height: 1)
        one.write("🐼", x: 0, y: 0)
        one.write("z", x: 5, y: -1)
        expectFrame(one, equals: [""])
        one.write("hello", x: 0, y: 0)
        expectFrame(one, equals: ["h"])
    }

    @Test("every write is sanitised: escape sequences never reach a cell")
    func sanitisedWrites() {
        var buffer = CellBuffer(width: 10, height: 1)
        buffer.write("\u{1B}[2J", x: 0, y: 0)
        expectFrame(buffer, equals: ["␛[2J"])
        #expect(!buffer.cells.contains { $0.grapheme.unicodeScalars.contains { $0.value < 0x20 } })
    }

    @Test("diff reports only changed cells as runs per row")
    func diff() {
        var before = CellBuffer(width: 8, height: 2)
        before.write("abcdefgh", x: 0, y: 0)
        var after = before
        after.write("XY", x: 2, y: 0)
        after.write("Z", x: 7, y: 1)
        let runs = after.changes(since: before)
        #expect(runs.map(\.x) == [2, 7])
        #expect(runs.map(\.y) == [0, 1])
        #expect(runs[0].cells.map(\.grapheme) == ["X", "Y"])
        #expect(after.changes(since: after).isEmpty)
    }

    @Test("diff against nothing or another size reports every cell")
    func diffFull() {
        let buffer = CellBuffer(width: 3, height: 2)
        #expect(buffer.changes(since: nil).reduce(0) { $0 + $1.cells.count } == 6)
        #expect(buffer.changes(since: CellBuffer(width: 2, height: 2)).count == 2)
    }

    @Test("a style change alone is a change")
    func styleDiff() {
        let before = CellBuffer(width: 2, height: 1)
        var after = before
        after.setStyle(CellStyle(.accent, .bold), in: Rect(x: 1, y: 0, width: 1, height: 1))
        #expect(after.changes(since: before) == [CellRun(x: 1, y: 0, cells: [Cell(" ", style: CellStyle(.accent, .bold))])])
    }
}
