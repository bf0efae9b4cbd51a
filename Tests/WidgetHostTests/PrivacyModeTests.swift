import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A widget showing a balance marked privacy-sensitive after a public label.
private struct Balance {
    struct Entry: TimelineEntry { var date: Date }
    struct Provider: TimelineProvider {
        func placeholder(in context: Context) -> Entry { Entry(date: .distantPast) }
        func snapshot(in context: Context) async -> Entry { placeholder(in: context) }
        func timeline(in context: Context) async throws -> Timeline<Entry> { Timeline(entries: [Entry(date: .distantPast)], policy: .never) }
    }

    static var widget: TerminalWidget {
        TerminalWidget(kind: "balance", displayName: "Balance", makeProvider: { _ in AnyTimelineProvider(Provider()) },
                       view: { _, _ in
                           var amount = ViewNode.Span("€1,234")
                           amount.privacySensitive = true
                           return PanelView(node: .text([ViewNode.Span("Balance "), amount]))
                       })
    }
}

@Suite("The privacy mode (P, --private)", .serialized)
@MainActor
struct PrivacyModeTests {
    @Test("P redacts what the panel marks private, and only that; the status bar says private; P again shows it")
    func toggles() async {
        let dashboard = DashboardUnderTest(size: TerminalSize(columns: 60, rows: 8))
        dashboard.install([PreparedPanel.of([("Money", Balance.widget)], family: .medium)])
        await dashboard.settle()
        func text() -> String { TextBackend.lines(dashboard.render()).joined(separator: "\n") }
        #expect(text().contains("Balance €1,234"))
        dashboard.press(.character("P"))
        #expect(text().contains("Balance ▒▒▒▒▒▒") && !text().contains("1,234"), "\(text())")
        #expect(TextBackend.lines(dashboard.render()).last?.contains("private") == true)
        dashboard.press(.character("P"))
        #expect(text().contains("Balance €1,234") && !(TextBackend.lines(dashboard.render()).last?.contains("private") ?? true))
    }

    @Test("--private for the dashboard and snapshot; not with --replay; P is the host's key, no action may take it")
    func options() throws {
        var expected = DashboardOptions()
        expected.isPrivate = true
        #expect(try CommandLineParser.parse(["--private"]) == .dashboard(expected))
        guard case .snapshot(let snapshot) = try CommandLineParser.parse(["snapshot", "--private"]) else {
            Issue.record("snapshot --private is not a snapshot")
            return
        }
        #expect(snapshot.isPrivate)
        #expect(throws: UsageError.self) { try CommandLineParser.parse(["snapshot", "--replay", "/tmp/run.log", "--private"]) }
        #expect(HelpText.text(for: nil, catalog: .builtin()).contains("--private"))
        #expect(WidgetAction.reservedKeys.contains("P"))
    }
}
