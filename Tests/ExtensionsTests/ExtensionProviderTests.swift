import DateTime
import FoundationEssentials
@testable import Extensions
import Testing
import TerminalUI
import WidgetCore
import Widgets
import WidgetTestSupport

/// A date of an extension message.
private func iso(_ text: String) -> Date { ISO8601DateTime.parse(text, .message)!.date! }

@Suite("Extension widgets", .serialized, .onOwnThreads(.awaitingExtensions))
struct ExtensionProviderTests {
    private static let placeholderWidgets = #"[{"kind": "panel", "displayName": "Panel", "placeholder": {"type": "text", "spans": [{"text": "loading", "role": "placeholder"}]}}]"#

    @Test("the placeholder comes from the manifest: drawing it launches nothing")
    func placeholder() throws {
        let fake = try FakeExtension(script: "answers.sh", widgets: Self.placeholderWidgets)
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host, now: { Date(timeIntervalSince1970: 0) })
        let provider = try widget.makeProvider(WidgetOptions())
        let entry = try #require(provider.placeholder(in: TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5))) as? ExtensionEntry)
        #expect(entry.view == .text([ViewNode.Span("loading", role: .placeholder)]))
        #expect(fake.host.status.launches == 0)
    }

    @Test("the host gives a call the extension's requestSeconds and 2 s more, so the extension's own timeout (logged; r relaunches) comes first")
    func requestTimeout() throws {
        let fake = try FakeExtension(script: "answers.sh", limits: #"{"requestSeconds": 60}"#)
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host, now: { Date(timeIntervalSince1970: 0) })
        let provider = try widget.makeProvider(WidgetOptions())
        #expect(provider.requestTimeout == 62)
    }

    @Test("the members of options (and of objects inside them) are sorted by name, byte order — a promise sh extensions rely on")
    func optionsSorted() {
        let options: WidgetOptions = ["zeta": .integer(1), "Alpha": .bool(true), "beta": .object(["y": .string("2"), "x": .string("1")]),
                                      "list": .list([.object(["b": .integer(2), "a": .integer(1)])])]
        #expect(RPCMessage.json(options).jsonText == #"{"Alpha":true,"beta":{"x":"1","y":"2"},"list":[{"a":1,"b":2}],"zeta":1}"#)
    }

    @Test("a timeline from the process: entries with dates, relevance and views as data, the policy, the panel's options")
    func timeline() async throws {
        let fake = try FakeExtension(script: "answers.sh")
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host, now: { Date(timeIntervalSince1970: 0) })
        let provider = try widget.makeProvider(["city": .string("Oslo")])
        let timeline = try await provider.timeline(in: TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5)))
        #expect(timeline.entries.map(\.date) == [iso("2026-11-30T22:00:00Z"), iso("2026-11-30T22:00:00Z")])
        let first = try #require(timeline.entries.first as? ExtensionEntry)
        #expect(first.view == .text([ViewNode.Span("hello panel#1 launch 1", role: .accent)]))
        #expect(timeline.entries[1].relevance == TimelineEntryRelevance(score: 2, duration: 60))
        #expect(timeline.policy == .after(iso("2026-12-01T00:00:00Z")))
        // The view draws through the same renderer as built-ins.
        var buffer = CellBuffer(width: 24, height: 1)
        widget.view(first, WidgetViewContext(family: .small, size: CellSize(columns: 24, rows: 1)))
            .draw(into: &buffer, in: Rect(x: 0, y: 0, width: 24, height: 1), glyphs: .unicode)
        expectFrame(buffer, equals: ["hello panel#1 launch 1"])
    }

    @Test("panels with other options are other instances, with the same options the same one (as WidgetKit's configurations); both share the one process")
    func instances() async throws {
        let fake = try FakeExtension(script: "answers.sh")
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host, now: { Date(timeIntervalSince1970: 0) })
        let context = TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5))
        let a = try await widget.makeProvider(["city": .string("Oslo")]).timeline(in: context)
        let b = try await widget.makeProvider(["city": .string("Lima")]).timeline(in: context)
        let c = try await widget.makeProvider(["city": .string("Oslo")]).timeline(in: context)
        #expect((a.entries[0] as? ExtensionEntry)?.view != (b.entries[0] as? ExtensionEntry)?.view)
        #expect((a.entries[0] as? ExtensionEntry)?.view == (c.entries[0] as? ExtensionEntry)?.view)
        #expect(fake.host.status.launches == 1)
    }

    @Test("a declared action is sent as an action request naming the panel's instance; an error answer fails the action")
    func actions() async throws {
        let fake = try FakeExtension(script: "answers.sh", widgets: #"[{"kind": "panel", "displayName": "Panel", "actions": [{"key": "u", "title": "units"}, {"key": "x", "title": "refused"}]}]"#)
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host, now: { Date(timeIntervalSince1970: 0) })
        #expect(widget.availableActions.map(\.key) == ["u", "x"])
        _ = try widget.makeProvider(["city": .string("Oslo")])
        guard case .task(let perform)? = widget.actionPerformers["u"], case .task(let refused)? = widget.actionPerformers["x"] else {
            Issue.record("no task performers")
            return
        }
        try await perform(WidgetActionContext(key: "u", options: ["city": .string("Oslo")]))
        #expect(fake.logLines.contains { $0.contains("action u for panel#1") }, "\(fake.logLines)")
        await #expect(throws: WidgetActionError.self) {
            try await refused(WidgetActionContext(key: "x", options: ["city": .string("Oslo")]))
        }
    }

    @Test("a snapshot is a snapshot request ({entry}) with the timeline's params and isPreview; no timeline is asked")
    func snapshot() async throws {
        let fake = try FakeExtension(script: "snapshots.sh")
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host, now: { Date(timeIntervalSince1970: 0) })
        let provider = try widget.makeProvider(WidgetOptions())
        let entry = try #require(await provider.snapshot(in: TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5),
                                                                                      isPreview: true)) as? ExtensionEntry)
        #expect(entry.failure == nil)
        #expect(entry.view == .text([ViewNode.Span("snap panel#1 preview=true")]))
        #expect(entry.relevance == TimelineEntryRelevance(score: 1, duration: 0))
        #expect(fake.logLines.contains { $0.contains("got snapshot") }, "\(fake.logLines)")
        #expect(!fake.logLines.contains { $0.contains("got timeline") }, "\(fake.logLines)")
    }

    @Test("an extension without snapshot (-32601) gets a timeline request instead; its first entry is the snapshot")
    func snapshotFallback() async throws {
        let fake = try FakeExtension(script: "answers.sh", debug: true)
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host, now: { Date(timeIntervalSince1970: 2_000_000_000) })
        // Long after both entries: the first one is still the snapshot, not the current one.
        let provider = try widget.makeProvider(WidgetOptions())
        let entry = try #require(await provider.snapshot(in: TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5),
                                                                                      isPreview: true)) as? ExtensionEntry)
        #expect(entry.failure == nil)
        #expect(entry.view == .text([ViewNode.Span("hello panel#1 launch 1", role: .accent)]))
        let sent = fake.logLines.filter { $0.contains("fake → ") }
        #expect(sent.count == 3, "\(sent)")  // initialize, snapshot, timeline
        #expect(sent.dropFirst().first?.contains(#""method":"snapshot","params":{"kind":"panel","instance":"panel#1""#) == true, "\(sent)")
        #expect(sent.last?.contains(#""method":"timeline""#) == true, "\(sent)")
        #expect(fake.host.status.launches == 1)
    }

    @Test("a bad timeline fails the reload with its problems, and the log has every one of them")
    func badTimelineLogged() async throws {
        let fake = try FakeExtension(script: "bad-answer.sh")
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host, now: { Date(timeIntervalSince1970: 0) })
        let provider = try widget.makeProvider(WidgetOptions())
        let context = TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5))
        let error = await #expect(throws: ExtensionError.self) { _ = try await provider.timeline(in: context) }
        guard case .badAnswer(let problems)? = error else {
            Issue.record("expected a bad answer, got \(String(describing: error))")
            return
        }
        #expect(problems.contains("entries[0].date") && problems.contains("policy"), "\(problems)")
        #expect(fake.logLines.contains { $0.hasPrefix("error: fake: bad answer to timeline for panel#1: ") && $0.hasSuffix(problems) },
                "\(fake.logLines)")
    }

    @Test("a snapshot that fails (an invalid entry, a crash) is the placeholder with the reason")
    func snapshotFailure() async throws {
        let fake = try FakeExtension(script: "bad-answer.sh", widgets: Self.placeholderWidgets)
        defer { fake.close() }
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host, now: { Date(timeIntervalSince1970: 0) })
        let provider = try widget.makeProvider(WidgetOptions())
        let context = TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5), isPreview: true)
        let entry = try #require(await provider.snapshot(in: context) as? ExtensionEntry)
        #expect(entry.view == .text([ViewNode.Span("loading", role: .placeholder)]))
        guard case .badAnswer(let problems)? = entry.failure else {
            Issue.record("expected a bad answer, got \(String(describing: entry.failure))")
            return
        }
        #expect(problems.contains("entry"), "\(problems)")
    }
}
