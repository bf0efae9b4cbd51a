import FoundationEssentials
import Testing
import WidgetTestSupport

/// Pages, the mouse and the layout in the real binary: keys and clicks (SGR 1006 reports typed
/// into the pane, as the terminal sends them under TERM=xterm-256color).
@Suite("pages and the mouse, end to end", .serialized, .onOwnThreads)
struct PagesEndToEndTests {
    /// An SGR 1006 press of the left button at a 0-based cell.
    private static func click(column: Int, row: Int) -> String { "\u{1b}[<0;\(column + 1);\(row + 1)M" }
    private static func release(column: Int, row: Int) -> String { "\u{1b}[<0;\(column + 1);\(row + 1)m" }

    @Test("pages by key and by a click on their tab; a click focuses a panel, a double click zooms it; every cell is a panel's")
    func pagesAndClicks() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let config = try home.write("config.json", """
            { "pages": [
                { "title": "Notes", "panels": [
                    { "kind": "text", "family": "medium", "title": "First", "options": { "text": "page one" } },
                    { "kind": "text", "family": "small", "title": "Second", "options": { "text": "still one" } } ] },
                { "title": "Clocks", "grid": ["utc utc tokyo"], "panels": [
                    { "kind": "clock", "title": "UTC", "area": "utc", "options": { "timeZone": "UTC" } },
                    { "kind": "clock", "title": "Tokyo", "area": "tokyo", "options": { "timeZone": "Asia/Tokyo" } } ] } ] }
            """)
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", home.path + "/state"],
                       size: (90, 20), environment: TmuxHarness.isolatedEnvironment(home: home.path))
        let first = tmux.waitFor(description: "page one") { anyRow($0, containsAll: "┌ First") && anyRow($0, containsAll: "1 Notes") }
        #expect(ScreenGrid(first).boxes().problems.isEmpty, "\(text(first))")
        try tmux.sendText("2")
        let clocks = tmux.waitFor(description: "page two by key") { anyRow($0, containsAll: "┌ UTC", "┌ Tokyo") }
        #expect(ScreenGrid(clocks).boxes().problems.isEmpty, "\(text(clocks))")
        // The tab "1 Notes" in the status bar (the last row), clicked.
        let tabs = clocks.last ?? ""
        let tabColumn = try #require(tabs.firstRange(of: "1 Notes")).lowerBound.utf16Offset(in: tabs)
        try tmux.sendText(Self.click(column: tabColumn, row: 19) + Self.release(column: tabColumn, row: 19))
        tmux.waitFor(description: "page one by a click on its tab") { anyRow($0, containsAll: "┌ First") }
        // A click on the second panel focuses it (the status bar names it) …
        let screen = try tmux.capture()
        let column = try #require(screen[0].firstRange(of: "┌ Second")).lowerBound.utf16Offset(in: screen[0]) + 3
        try tmux.sendText(Self.click(column: column, row: 5) + Self.release(column: column, row: 5))
        tmux.waitFor(description: "Second focused") { ($0.last ?? "").contains("│ Second") }
        // … and two clicks at once (a double click) zoom it.
        let twice = Self.click(column: column, row: 5) + Self.release(column: column, row: 5)
        try tmux.sendText(twice + twice)
        tmux.waitFor(description: "Second zoomed") { ($0.first ?? "").hasPrefix("┌ Second") }
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
    }
}
