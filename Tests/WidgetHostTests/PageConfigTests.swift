import JSONTree
import TerminalUI
import Testing
import WidgetCore
@testable import WidgetHost
import Widgets

private func report(_ text: String) throws -> ConfigReport {
    Catalog.builtin().validator(isKnownTimeZone: { _ in true }).validate(try JSONParser().parse(text))
}

private func errors(_ text: String) throws -> [String] {
    try report(text).errors.map(\.description)
}

@Suite("Config: pages and grids")
struct PageConfigTests {
    @Test("pages become runs of one panel list, each with its title and grid; top-level panels are one page")
    func pages() throws {
        let config = try #require(try report("""
            {"rotateSeconds": 30, "mouse": false, "pages": [
              {"title": "Game", "panels": [{"kind": "clock"}, {"kind": "system"}]},
              {"title": "Servers", "grid": ["a b", "a c"], "columns": [2, 1], "panels": [
                {"kind": "system", "area": "a"}, {"kind": "clock", "area": "b"}, {"kind": "text", "area": "c",
                 "options": {"text": "hi"}}]}]}
            """).config)
        #expect(config.panels.map(\.kind) == ["clock", "system", "system", "clock", "text"])
        #expect(config.pages.map(\.title) == ["Game", "Servers"])
        #expect(config.pages.map(\.panels) == [0..<2, 2..<5])
        #expect(config.pages[1].grid?.columnWeights == [2, 1] && config.pages[1].grid?.rowWeights == [1, 1])
        #expect(config.pages[1].grid?.area(named: "a") == GridTemplate.Area(column: 0, row: 0, columns: 1, rows: 2))
        #expect(config.rotateSeconds == 30 && !config.mouse)
        let flat = try #require(try report(#"{"panels": [{"kind": "clock"}]}"#).config)
        #expect(flat.pages == [PageConfig(panels: 0..<1)] && flat.mouse && flat.rotateSeconds == nil)
    }

    @Test("a layout problem is explained in words, at its key path")
    func gridErrors() throws {
        #expect(try errors("""
            {"grid": ["board board hero", "board x board"], "panels": [{"kind": "clock", "area": "board"}]}
            """) == ["grid: area 'board' is not a rectangle: rows 1 and 2 differ"])
        #expect(try errors("""
            {"grid": ["a b", "a"], "panels": [{"kind": "clock", "area": "a"}]}
            """) == ["grid[1]: row 2 has 1 areas, row 1 has 2: every row has as many"])
        #expect(try errors("""
            {"grid": ["a .", "a b"], "panels": [{"kind": "clock", "area": "a"}]}
            """) == [#"grid[0]: ".": an empty cell ('.') would be a hole: every cell names a panel's area"#])
        #expect(try errors("""
            {"grid": ["a b"], "columns": [1], "panels": [{"kind": "clock", "area": "a"}, {"kind": "clock", "area": "b"}]}
            """) == ["columns: expected 2 weights, one per grid column, got 1"])
        #expect(try errors("""
            {"grid": ["a b"], "panels": [{"kind": "clock", "area": "a"}, {"kind": "clock"}]}
            """) == ["panels[1]: missing 'area': every panel of a page with a grid names its area (one of a, b)"])
        #expect(try errors("""
            {"grid": ["board b"], "panels": [{"kind": "clock", "area": "bord"}, {"kind": "clock", "area": "b"}]}
            """) == ["panels[0].area: no area 'bord' in the grid; did you mean 'board'?"])
        #expect(try errors("""
            {"grid": ["a b c"], "panels": [{"kind": "clock", "area": "a"}, {"kind": "clock", "area": "b"}]}
            """) == ["panels: area 'c' of the grid has no panel: every area is a panel's (no holes)"])
        #expect(try errors("""
            {"panels": [{"kind": "clock", "area": "a"}]}
            """) == ["panels[0].area: 'area' places a panel on a 'grid': its page has none"])
    }

    @Test("pages: not with panels, 1 to 9 of them, each with its panels; rotateSeconds wants pages")
    func pageErrors() throws {
        #expect(try errors(#"{"panels": [{"kind": "clock"}], "pages": [{"panels": [{"kind": "clock"}]}]}"#)
                == ["pages: give 'panels' or 'pages', not both (a page has its own 'panels')"])
        #expect(try errors(#"{"pages": [{"title": "A"}]}"#) == ["pages[0].panels: missing required key: the page's panels"])
        #expect(try errors(#"{"pages": []}"#) == ["pages: expected 1 to 9 pages (keys 1-9 go to them), got 0"])
        #expect(try errors(#"{"pages": [{"panels": [{"kind": "clock"}], "titel": "A"}]}"#)
                == ["pages[0].titel: unknown key; did you mean 'title'?"])
        #expect(try errors(#"{"grid": ["a"], "pages": [{"panels": [{"kind": "clock"}]}]}"#)
                == ["grid: with 'pages', 'grid' goes in each page that has a grid"])
        #expect(try report(#"{"rotateSeconds": 10, "panels": [{"kind": "clock"}]}"#).warnings.map(\.description)
                == ["rotateSeconds: only one page: there is nothing to rotate"])
    }

    @Test("weights share the grid out exactly; a panel smaller than a box with a line has no layout")
    func gridFrames() throws {
        let grid = GridTemplate(cells: [["a", "a", "b"], ["a", "a", "c"]], columnWeights: [1, 1, 2], rowWeights: [2, 1])
        let frames = try #require(GridLayout().frames(on: grid, areas: ["a", "b", "c"], in: Rect(x: 0, y: 0, width: 101, height: 30)))
        #expect(frames == [Rect(x: 0, y: 0, width: 50, height: 30), Rect(x: 50, y: 0, width: 51, height: 20),
                           Rect(x: 50, y: 20, width: 51, height: 10)])
        #expect(GridLayout().frames(on: grid, areas: ["a", "b", "c"], in: Rect(x: 0, y: 0, width: 101, height: 7)) == nil)
        #expect(GridLayout.edges(total: 10, weights: [1, 1, 1]) == [0, 4, 7, 10])
    }
}
