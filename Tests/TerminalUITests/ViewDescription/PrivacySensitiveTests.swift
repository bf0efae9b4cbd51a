import Testing
import TerminalUI
import WidgetTestSupport

/// Issue 26, item 8: spans, table cells, bars and sparklines may be `privacySensitive`; the
/// privacy mode redacts exactly them (WidgetKit's `.privacySensitive()` under
/// `redacted(reason: .privacy)`).
@Suite("privacySensitive and the privacy mode")
struct PrivacySensitiveTests {
    static let json = #"""
        {"type": "vstack", "children": [
          {"type": "text", "spans": [{"text": "Balance "}, {"text": "€1,234", "privacySensitive": true}]},
          {"type": "table", "columns": [{"title": "Who"}, {"title": "Owes", "align": "right"}],
           "rows": [[{"text": "Ann"}, {"text": "42", "privacySensitive": true}]]},
          {"type": "bar", "value": 0.5, "privacySensitive": true},
          {"type": "sparkline", "values": [1, 2, 3], "privacySensitive": true},
          {"type": "text", "spans": [{"text": "public"}]}]}
        """#

    @Test("decoded, encoded and decoded again the same; a value that is not a bool is an error with its path")
    func roundTrip() throws {
        let node = try ViewNode.decode(Array(Self.json.utf8))
        #expect(try ViewNode.decode(Array(node.jsonText.utf8)) == node)
        #expect(node.jsonText.contains(#""privacySensitive":true"#))
        #expect(throws: ViewDescriptionError.self) {
            try ViewNode.decode(Array(#"{"type": "text", "spans": [{"text": "x", "privacySensitive": "yes"}]}"#.utf8))
        }
    }

    @Test("drawn, the private parts are noted; redacted, only they become redaction marks (spaces stay)")
    func redactsOnlyThePrivate() throws {
        let node = try ViewNode.decode(Array(Self.json.utf8))
        var buffer = CellBuffer(width: 16, height: 6)
        node.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        let shown = TextBackend.lines(buffer)
        #expect(shown[0] == "Balance €1,234")
        #expect(!buffer.privateAreas.isEmpty)
        buffer.redactPrivate(glyphs: .unicode)
        expectFrame(buffer, equals: [
            "Balance ▒▒▒▒▒▒",
            "Who         Owes",
            "Ann           ▒▒",
            "▒▒▒▒▒▒▒▒",
            "▒▒▒",
            "public",
        ])
    }

    @Test("without privacySensitive nothing is noted, and redactPrivate changes nothing")
    func nothingPrivate() {
        var buffer = CellBuffer(width: 10, height: 1)
        ViewNode.text("all public").draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        let before = buffer
        buffer.redactPrivate(glyphs: .unicode)
        #expect(buffer.privateAreas.isEmpty && buffer == before)
    }
}
