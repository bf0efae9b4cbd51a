import ExtensionProtocol
import FoundationEssentials
import JSONTree
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import WidgetHostSDK

private struct Entry: WidgetHostSDK.TimelineEntry {
    let date: Date
    let load: Double
}

private struct Provider: WidgetHostSDK.TimelineProvider {
    func placeholder(in context: Context) -> Entry { Entry(date: Date(timeIntervalSince1970: 0), load: 0.5) }
    func snapshot(in context: Context) async -> Entry { Entry(date: Date(timeIntervalSince1970: 60), load: 0.25) }
    func timeline(in context: Context) async -> WidgetHostSDK.Timeline<Entry> {
        WidgetHostSDK.Timeline(entries: [Entry(date: Date(timeIntervalSince1970: 1_796_076_000), load: 0.83)],
                               policy: .after(Date(timeIntervalSince1970: 1_796_076_060)))
    }
}

/// docs/views.md's example, built with the SDK's view builder.
private var documented: some WidgetHostSDK.View {
    VStack {
        Text("CPU ").role(.muted).bold() + Text("83%").role(.positive)
        Bar(value: 0.5, label: "50%").role(.positive)
        Divider()
        Table(columns: [Table.Column("Hero"), Table.Column("Exp", alignment: .right, minimum: 6)],
              rows: [[Text("🐙 Octo").role(.accent), Text("86463")], [Text("龍之介"), Text("3121")]])
        Sparkline(values: [1, 2, 3, 4, 5, 6, 7, 8])
    }
}

@Suite("Swift SDK")
struct SwiftSDKTests {
    @Test("the view builder emits the view JSON of docs/views.md")
    func viewJSON() {
        let view = VStack(gap: 1) {
            Text("CPU ").role(.muted).bold() + Text("83%").role(.positive)
            if Bool(true) { Bar(value: 0.5, label: "50%").role(.accent) }
            HStack { Spacer(); Sparkline(values: [1, 2], max: 4) }
        }
        #expect(view.json.text == #"{"type":"vstack","children":[{"type":"text","spans":[{"text":"CPU ","role":"muted","bold":true},{"text":"83%","role":"positive"}]},{"type":"bar","value":0.5,"role":"accent","label":"50%"},{"type":"hstack","children":[{"type":"spacer"},{"type":"sparkline","values":[1.0,2.0],"max":4.0}]}],"gap":1}"#)
    }

    @Test("the host's decoder reads what the SDK emits and draws docs/views.md's example as documented")
    func hostDrawsIt() throws {
        let node = try ViewNode.decode(Array(documented.json.text.utf8))
        var buffer = CellBuffer(width: 20, height: 7)
        node.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        // The same frame docs/views.md shows for its JSON (TerminalUITests draws that JSON).
        expectFrame(buffer, equals: [
            "CPU 83%",
            "████████         50%",
            "────────────────────",
            "Hero             Exp",
            "🐙 Octo        86463",
            "龍之介          3121",
            "▁▂▃▄▅▆▇█",
        ])
        #expect(buffer[0, 0].style == CellStyle(.muted, .bold))
        #expect(buffer[4, 0].style == CellStyle(.positive))
    }

    @Test("a hostile text stays data: JSON escapes, the host sanitises")
    func hostileText() throws {
        let text = Text("\u{1B}[2J\n\"quoted\" \\ \u{7}")
        #expect(text.json.text == #"{"type":"text","spans":[{"text":"\u001b[2J\n\"quoted\" \\ \u0007"}]}"#)
        _ = try ViewNode.decode(Array(text.json.text.utf8))
    }

    @Test("a timeline answer: entries with ISO 8601 dates, relevance and view, then the policy")
    func timelineAnswer() async {
        let widget = StaticConfiguration(kind: "load", provider: Provider()) { entry, context in
            Text(context.family == .small ? "small" : "big")
            Bar(value: entry.load)
        }.handler
        let context = TimelineProviderContext(family: .small, displaySize: (22, 7))
        #expect(await widget.timeline(context).text == #"{"entries":[{"date":"2026-11-30T22:00:00Z","view":{"type":"vstack","children":[{"type":"text","spans":[{"text":"small"}]},{"type":"bar","value":0.83}]}}],"policy":{"after":"2026-11-30T22:01:00Z"}}"#)
        #expect(await widget.snapshot(context).text == #"{"entry":{"date":"1970-01-01T00:01:00Z","view":{"type":"vstack","children":[{"type":"text","spans":[{"text":"small"}]},{"type":"bar","value":0.25}]}}}"#)
    }

    @Test("the protocol's vocabulary is the host's: families, the method-not-found code")
    func sharedVocabulary() {
        #expect(Family.allCases.map(\.rawValue) == WidgetCore.WidgetFamily.allCases.map(\.rawValue))
        #expect(RPCErrorCode.methodNotFound == -32601)
        #expect(TimelineParameter.allCases.map(\.rawValue) == ["kind", "instance", "family", "size", "options", "isPreview", "userInitiated"])
    }

    @Test("options arrive as JSON and read by name")
    func options() throws {
        let params = try #require(JSON.parse(#"{"greeting":"Hi","count":3,"on":true,"ratio":0.5}"#))
        let options = Options(params)
        #expect(options.string("greeting") == "Hi")
        #expect(options.int("count") == 3)
        #expect(options.bool("on") == true)
        #expect(options.double("ratio") == 0.5)
        #expect(options.string("missing") == nil)
    }
}
