import Testing

/// The checker the end-to-end tests rely on: it must see a border a wide character moved.
@Suite("screen grid")
struct ScreenGridTests {
    @Test("wide characters take two columns: 東 and 🗼 are 2, ❤ and é are 1")
    func columns() {
        #expect(ScreenGrid.cells(of: "a東🗼❤é") == ["a", "東", "", "🗼", "", "❤", "é"])
        #expect(ScreenGrid.cells(of: "e\u{301}x") == ["e\u{301}", "x"])
    }

    @Test("aligned boxes are found with their frames, side by side")
    func aligned() {
        let screen = [
            "┌ 東京 ┐┌─┐",
            "│ ab   ││ │",
            "└──────┘└─┘",
        ]
        let (boxes, problems) = ScreenGrid(screen).boxes()
        #expect(problems.isEmpty)
        #expect(boxes == [BoxFrame(x: 0, y: 0, width: 8, height: 3), BoxFrame(x: 8, y: 0, width: 3, height: 3)])
    }

    @Test("a title measured one column short moves its right border: reported with the row")
    func misaligned() {
        // The title row was laid out as if 🗼 were one column wide.
        let screen = [
            "┌ 🗼 ─┐",
            "│    │",
            "└────┘",
        ]
        let (boxes, problems) = ScreenGrid(screen).boxes()
        #expect(boxes.isEmpty)
        #expect(problems.count == 1 && problems[0].hasPrefix("row 1:"), "\(problems)")
        #expect(ScreenGrid(screen).hasBoxDrawing)
        #expect(!ScreenGrid(["plain text"]).hasBoxDrawing)
    }
}
