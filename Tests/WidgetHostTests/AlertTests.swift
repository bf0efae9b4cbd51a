import FoundationEssentials
import JSONTree
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A widget whose entries carry the alert level they are given, one a minute.
private struct Levels: TimelineProvider {
    struct Entry: TimelineEntry { var date: Date; var level: EntryAlert.Level? }
    let levels: [EntryAlert.Level?]
    func placeholder(in context: Context) -> Entry { Entry(date: .distantPast, level: nil) }
    func snapshot(in context: Context) async -> Entry { placeholder(in: context) }
    func timeline(in context: Context) async throws -> Timeline<Entry> {
        Timeline(entries: levels.enumerated().map { Entry(date: at(Double($0.offset) * 60), level: $0.element) }, policy: .never)
    }

    static func widget(_ levels: [EntryAlert.Level?]) -> TerminalWidget {
        TerminalWidget(manifest: WidgetManifest(kind: "levels", displayName: "Levels", description: "", defaultFamily: .small,
                                                usesNetwork: false),
                       makeProvider: { _ in AnyTimelineProvider(Levels(levels: levels)) },
                       view: { _, _ in PanelView(node: .text("x")) })
            .alerting { entry, _ in (entry as? Entry)?.level.map { EntryAlert(level: $0, text: "level \($0.rawValue)") } }
    }
}

@MainActor
private func notices(_ board: DashboardUnderTest) -> [AlertNotice] {
    board.host.effects.compactMap { if case .notify(let notice) = $0 { notice } else { nil } }
}

@MainActor
private func alertEvents(_ board: DashboardUnderTest) -> [HistoryEvent] {
    board.host.effects.flatMap { effect -> [HistoryEvent] in
        guard case .recordEvents(let events) = effect else { return [] }
        return events.filter { $0.kind == .alert }
    }
}

@Suite("Alerts: edge-triggered, on the border, recorded, notified once per cooldown")
@MainActor
struct AlertTests {
    @Test("an alert acts when it starts or rises, not while it stands or falls; the border shows the standing level")
    func edges() async {
        let clock = ManualClock(now: at(0))
        let board = DashboardUnderTest(size: TerminalSize(columns: 40, rows: 10), clock: clock)
        board.install([PreparedPanel.of([("Disk", Levels.widget([nil, .warning, .warning, .critical, .warning, nil, .warning]))],
                                        family: .small)])
        await board.settle()
        #expect(alertEvents(board).isEmpty)
        var levels: [EntryAlert.Level?] = []
        for minute in 1...6 {
            clock.advance(to: at(Double(minute) * 60))
            await board.settle()
            levels.append(board.panelAlerts.values.first?.level)
        }
        #expect(levels == [.warning, .warning, .critical, .warning, nil, .warning])
        #expect(alertEvents(board).map(\.level) == [.warning, .critical, .warning], "start, rise, start again")
        #expect(alertEvents(board).first?.panel == "Disk" && alertEvents(board).first?.text == "level warning")
        let buffer = board.render()
        #expect(buffer[0, 0].style.role == .warning, "the border in the level's role")
    }

    @Test("a failed activity is the activities panel's critical alert; notified at most once per cooldown")
    func failedActivity() {
        let clock = ManualClock(now: at(0))
        let board = DashboardUnderTest(size: TerminalSize(columns: 60, rows: 12), clock: clock)
        let config = DashboardConfig(panels: [PanelConfig(kind: "activities", family: .medium, title: "Activities")])
        var withNotify = config
        withNotify.notify = NotifyConfig(command: ["touch", "{text}"], cooldownSeconds: 300)
        board.send(.configLoaded(withNotify, .default))
        board.install([PreparedPanel.of([("Activities", HostPanels.activities.widget(.none))], family: .medium)])
        let fail = { (id: String) in
            board.send(.activityRequested(ActivityRequest(action: .start, id: id, title: id.uppercased())))
            board.send(.activityRequested(ActivityRequest(action: .end, id: id, detail: "2 failed", state: .failure, dismissAfter: 30)))
        }
        fail("build")
        #expect(notices(board) == [AlertNotice(panel: "Activities", level: .critical, text: "BUILD failed: 2 failed", settings: withNotify.notify)])
        #expect(alertEvents(board).count == 1)
        #expect(board.render()[0, 0].style.role == .negative)
        clock.advance(by: 60)  // the failure was dismissed after 30 s: the alert ended
        fail("tests")
        #expect(alertEvents(board).count == 2, "recorded again")
        #expect(notices(board).count == 1, "but not notified within the cooldown")
        clock.advance(by: 300)
        fail("lint")
        #expect(notices(board).count == 2)
    }

    @Test("a failure ended with --dismiss-after 0 is alerted and notified before it leaves")
    func failedAndDismissedAtOnce() {
        let clock = ManualClock(now: at(0))
        let board = DashboardUnderTest(size: TerminalSize(columns: 60, rows: 12), clock: clock)
        var config = DashboardConfig(panels: [PanelConfig(kind: "activities", family: .medium, title: "Activities")])
        config.notify = NotifyConfig(command: ["touch", "{text}"], cooldownSeconds: 300)
        board.send(.configLoaded(config, .default))
        board.install([PreparedPanel.of([("Activities", HostPanels.activities.widget(.none))], family: .medium)])
        board.send(.activityRequested(ActivityRequest(action: .start, id: "tests", title: "Tests")))
        board.send(.activityRequested(ActivityRequest(action: .end, id: "tests", state: .failure, dismissAfter: 0)))
        #expect(notices(board).map(\.text) == ["Tests failed"])
        #expect(alertEvents(board).count == 1)
        #expect(board.activityWakeDate == at(0), "it leaves at the wake armed for now")
        clock.advance(by: 0.001)
        #expect(board.activities.activities.isEmpty && board.panelAlerts.isEmpty, "then it is gone, and its alert with it")
    }

    @Test("a restart's failed activity is shown but not acted on again")
    func restoredQuietly() {
        let board = DashboardUnderTest(size: TerminalSize(columns: 60, rows: 12), clock: ManualClock(now: at(0)))
        board.install([PreparedPanel.of([("Activities", HostPanels.activities.widget(.none))], family: .medium)])
        board.send(.activitiesRestored([Activity(id: "b", title: "B", state: .failure, started: at(-10), updated: at(-5))], events: []))
        #expect(board.panelAlerts.count == 1 && alertEvents(board).isEmpty)
    }

    @Test("the notify command's placeholders are filled in one pass")
    func rules() throws {
        let notice = AlertNotice(panel: "Disk {text}", level: .warning, text: "93% {level}", settings: NotifyConfig())
        #expect(AlertNotifier.arguments(["notify-send", "{title}", "[{level}] {text}", "{nope}"], notice)
                == ["notify-send", "Disk {text}", "[warning] 93% {level}", "{nope}"])
    }

    @Test("the config's notify is checked like every key")
    func config() throws {
        let validator = Catalog.builtin().validator()
        let good = validator.validate(try JSONParser().parse(#"{"panels": [{"kind": "clock"}], "notify": {"bell": true, "command": ["notify-send", "{title}"], "cooldownSeconds": 60}}"#))
        #expect(good.config?.notify == NotifyConfig(bell: true, command: ["notify-send", "{title}"], cooldownSeconds: 60))
        let bad = validator.validate(try JSONParser().parse(#"{"panels": [{"kind": "clock"}], "notify": {"bel": true, "command": "notify-send", "cooldownSeconds": -1}}"#))
        #expect(bad.errors.map(\.path.description) == ["notify.bel", "notify.command", "notify.cooldownSeconds"], "\(bad.errors)")
    }
}
