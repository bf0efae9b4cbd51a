import JSONTree
import Testing
import WidgetCore
@testable import Extensions

@Suite("An extension entry's alert")
struct ExtensionAlertTests {
    private func timeline(_ alert: String) throws -> JSONValue {
        try JSONParser().parse(#"{"entries": [{"date": "2026-11-30T22:05:00Z", "view": {"type": "text", "spans": [{"text": "x"}]}, "alert": \#(alert)}], "policy": "never"}"#)
    }

    @Test("an alert is read with its level and text, and reaches the widget's rule")
    func read() throws {
        let entry = try #require(try ExtensionTimelineDecoder.decode(try timeline(#"{"level": "critical", "text": "disk 93% full"}"#)).entries.first)
        #expect(entry.alert == EntryAlert(level: .critical, text: "disk 93% full"))
    }

    @Test("a wrong alert is named with its path")
    func wrong() throws {
        for bad in [#"{"level": "panic", "text": "x"}"#, #"{"level": "warning"}"#, #""warning""#, #"{"level": "warning", "text": "x", "extra": 1}"#] {
            do {
                _ = try ExtensionTimelineDecoder.decode(try timeline(bad))
                Issue.record("accepted \(bad)")
            } catch {
                #expect("\(error)".contains("entries[0].alert: expected {\"level\": \"warning\" | \"critical\""), "\(error)")
            }
        }
    }
}
