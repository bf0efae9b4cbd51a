import Testing
import TerminalUI
import WidgetTestSupport

/// Issue 26, item 9: view nodes, spans and table cells may be `"accentable": true`
/// (WidgetKit's `widgetAccentable()`); the `accented` rendering mode tints exactly them.
@Suite("accentable view parts")
struct AccentableTests {
    static let json = #"""
        {"type": "vstack", "children": [
          {"type": "text", "spans": [{"text": "Leader "}, {"text": "Octo", "role": "accent", "accentable": true}]},
          {"type": "table", "columns": [{"title": ""}, {"title": ""}],
           "rows": [[{"text": "1", "accentable": true}, {"text": "Spouty"}]]},
          {"type": "hstack", "accentable": true, "children": [{"type": "bar", "value": 0.5}]},
          {"type": "text", "accentable": true, "spans": [{"text": "12:00"}]},
          {"type": "sparkline", "values": [1, 2], "accentable": true},
          {"type": "bar", "value": 1, "accentable": true},
          {"type": "text", "spans": [{"text": "calm"}]}]}
        """#

    @Test("decoded, encoded and decoded again the same; a value that is not a bool is an error with its path")
    func roundTrip() throws {
        let node = try ViewNode.decode(Array(Self.json.utf8))
        #expect(try ViewNode.decode(Array(node.jsonText.utf8)) == node)
        #expect(node.jsonText.contains(#""accentable":true"#))
        let error = #expect(throws: ViewDescriptionError.self) {
            try ViewNode.decode(Array(#"{"type": "bar", "value": 1, "accentable": 1}"#.utf8))
        }
        #expect(error?.issues.first?.path == "view.accentable")
        #expect(throws: ViewDescriptionError.self) {
            try ViewNode.decode(Array(#"{"type": "spacer", "accentable": true}"#.utf8))
        }
    }

    @Test("drawn, exactly the accentable parts are marked: a span's glyphs, a cell, a node's whole area")
    func marks() throws {
        let node = try ViewNode.decode(Array(Self.json.utf8))
        var buffer = CellBuffer(width: 12, height: 7)
        node.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        func marked(_ row: Int) -> String {
            String((0..<buffer.width).map { buffer[$0, row].style.accentable ? "A" : "." })
        }
        #expect(marked(0) == ".......AAAA.", "the span, not the label nor the blanks after it")
        #expect(marked(1) == "AAAAAA......", "the rank cell's column only")
        #expect(marked(2) == "AAAAAAAAAAAA", "the stack's whole area")
        #expect(marked(3) == "AAAAAAAAAAAA", "a text node, its blanks too")
        #expect(marked(4) == "AAAAAAAAAAAA")
        #expect(marked(5) == "AAAAAAAAAAAA")
        #expect(marked(6) == "............")
        // Nothing else changes: the same text as without the marks.
        let plain = try ViewNode.decode(Array(Self.json.replacing(#", "accentable": true"#, with: "").replacing(#""accentable": true, "#, with: "").utf8))
        var unmarked = CellBuffer(width: 12, height: 7)
        plain.draw(into: &unmarked, in: unmarked.bounds, glyphs: .unicode)
        #expect(TextBackend.lines(unmarked) == TextBackend.lines(buffer))
        #expect(!plain.jsonText.contains("accentable"))
    }

    @Test("a node built in Swift: .accentable() sets the node's flag; a spacer or divider stays as it is")
    func builder() {
        #expect(ViewNode.text("x").accentable().isAccentable)
        #expect(!ViewNode.text("x").accentable(false).isAccentable)
        #expect(ViewNode.vstack([.text("x")]).accentable().isAccentable)
        #expect(ViewNode.spacer.accentable() == .spacer)
        #expect(ViewNode.divider.accentable() == .divider)
    }
}
