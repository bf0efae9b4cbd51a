import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

@MainActor
private func dashboard(kinds: [WidgetDefinition], clock: ManualClock, columns: Int = 60, rows: Int = 12) -> DashboardUnderTest {
    let dashboard = DashboardUnderTest(size: TerminalSize(columns: columns, rows: rows), clock: clock)
    dashboard.install(kinds.map { PreparedPanel.of([($0.manifest.displayName, $0.widget(.none))], family: .medium) })
    return dashboard
}

@MainActor
private func lines(_ dashboard: DashboardUnderTest) -> [String] { TextBackend.lines(dashboard.render()) }

private func start(_ id: String, _ title: String, progress: Double? = nil, staleAfter: TimeInterval? = nil) -> DashboardMessage {
    .activityRequested(ActivityRequest(action: .start, id: id, title: title, progress: progress, staleAfter: staleAfter))
}

@Suite("Live Activities on the dashboard, in simulated time")
@MainActor
struct ActivitiesDashboardTests {
    @Test("a start shows at once in the activities panel, an update moves its bar, an end shows its outcome")
    func panel() {
        let clock = ManualClock(now: at(0))
        let board = dashboard(kinds: [HostPanels.activities], clock: clock)
        #expect(lines(board).contains { $0.contains("no activities") })
        board.send(start("build", "Build app", progress: 0.2))
        var frame = lines(board)
        #expect(frame.contains { $0.contains("⏵ Build app") && $0.contains("<1m") })
        #expect(frame.contains { $0.contains("20%") })
        board.send(.activityRequested(ActivityRequest(action: .update, id: "build", detail: "linking", progress: 0.8)))
        frame = lines(board)
        #expect(frame.contains { $0.contains("80%") } && frame.contains { $0.contains("linking") })
        clock.advance(by: 125)
        board.send(.activityRequested(ActivityRequest(action: .end, id: "build", state: .failure)))
        frame = lines(board)
        #expect(frame.contains { $0.contains("✖ Build app") && $0.contains("failure · 2m") })
        let effects = board.host.effects
        #expect(effects.contains { if case .recordEvents(let events) = $0 { events.first?.level == .critical } else { false } })
        #expect(effects.contains { if case .saveActivities(let saved) = $0 { saved.first?.state == .failure } else { false } })
    }

    @Test("a timer is armed only while something waits: the dismissal of an ended one, then none")
    func timer() {
        let clock = ManualClock(now: at(0))
        let board = dashboard(kinds: [HostPanels.activities], clock: clock)
        board.send(start("build", "Build"))
        #expect(board.activityWakeDate == nil, "a running one arms nothing")
        board.send(.activityRequested(ActivityRequest(action: .end, id: "build")))
        #expect(board.activityWakeDate == at(300))
        clock.advance(by: 299)
        #expect(board.activities.activities.count == 1)
        clock.advance(by: 1)
        #expect(board.activities.activities.isEmpty, "gone after 5 minutes")
        #expect(board.activityWakeDate == nil, "and nothing is armed any more")
        #expect(lines(board).contains { $0.contains("no activities") })
    }

    @Test("one not updated within stale-after is drawn stale when that moment comes")
    func stale() {
        let clock = ManualClock(now: at(0))
        let board = dashboard(kinds: [HostPanels.activities], clock: clock)
        board.send(start("deploy", "Deploy", progress: 0.5, staleAfter: 60))
        #expect(!lines(board).contains { $0.contains("stale") })
        clock.advance(by: 60)
        #expect(lines(board).contains { $0.contains("Deploy") && $0.contains("stale") })
        let buffer = board.render()
        let row = TextBackend.lines(buffer).firstIndex { $0.contains("Deploy") }!
        let column = Array(TextBackend.lines(buffer)[row]).firstIndex(of: "D")!
        #expect(buffer[column, row].style.role == .stale)
    }

    @Test("without an activities panel on the page, the status bar has the compact line")
    func statusLine() {
        let clock = ManualClock(now: at(0))
        let board = dashboard(kinds: [HostPanels.events], clock: clock, columns: 100)
        board.send(start("build", "Build", progress: 0.4))
        board.send(start("deploy", "Deploy"))
        board.send(.activityRequested(ActivityRequest(action: .end, id: "deploy")))
        #expect(lines(board).last?.contains("deploy ✔ · ⏵ build 40%") == true, "\(lines(board).last ?? "")")
        let withPanel = dashboard(kinds: [HostPanels.activities], clock: clock, columns: 100)
        withPanel.send(start("build", "Build", progress: 0.4))
        #expect(lines(withPanel).last?.contains("⏵ build") == false, "the panel shows it already")
    }

    @Test("the events panel lists the history newest first, restored ones included")
    func events() {
        let clock = ManualClock(now: at(0))
        let board = dashboard(kinds: [HostPanels.events], clock: clock)
        board.send(.activitiesRestored([], events: [HistoryEvent(time: at(-86_400), kind: .activity, title: "Old", level: .info,
                                                                 text: "old started")]))
        board.send(start("build", "Build"))
        board.send(.activityRequested(ActivityRequest(action: .end, id: "build", detail: "2 failed", state: .failure)))
        let frame = lines(board)
        let failed = frame.firstIndex { $0.contains("⚠ build failed: 2 failed") }
        let started = frame.firstIndex { $0.contains("• build started") }
        let old = frame.firstIndex { $0.contains("old started") }
        #expect(failed != nil && started != nil && old != nil && failed! < started! && started! < old!, "\(frame)")
        #expect(frame[old!].contains("01-14"), "a day before shows its date: \(frame[old!])")
    }

    @Test("a restart's board comes back; ended ones whose time passed while the host was down are gone")
    func restored() {
        let clock = ManualClock(now: at(1000))
        let board = dashboard(kinds: [HostPanels.activities], clock: clock)
        board.send(.activitiesRestored([
            Activity(id: "build", title: "Build", progress: 0.8, started: at(0), updated: at(10)),
            Activity(id: "old", title: "Old", state: .success, started: at(0), updated: at(20)),
        ], events: []))
        #expect(board.activities.activities.map(\.id) == ["build"])
        #expect(lines(board).contains { $0.contains("80%") })
        #expect(board.host.effects.contains(.saveActivities(board.activities.activities)))
    }
}

@Suite("Live Activities: the panels' views at every size")
struct ActivitiesViewTests {
    private let activities = [
        Activity(id: "build", title: "Build 🐳 app", detail: "linking", progress: 0.4, started: at(0), updated: at(100), staleAfter: 60),
        Activity(id: "deploy", title: "Deploy", state: .failure, started: at(0), updated: at(30)),
    ]

    @Test("from 0x0 to a wide panel: nothing traps, lines fit, a stale one says so")
    func sizes() {
        let entry = ActivitiesEntry(date: at(200), activities: activities, unicode: true)
        for (columns, rows) in [(0, 0), (1, 1), (3, 2), (12, 2), (30, 4), (40, 6), (80, 20)] {
            let context = WidgetViewContext(family: .medium, size: CellSize(columns: columns, rows: rows))
            var buffer = CellBuffer(width: columns, height: rows)
            PanelView(node: ActivitiesView.node(entry, context: context)).draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
            let lines = TextBackend.lines(buffer)
            #expect(lines.allSatisfy { DisplayWidth.of($0) <= columns })
            if columns >= 40, rows >= 6 {
                #expect(lines.contains { $0.contains("Build 🐳 app") && $0.contains("stale") }, "\(lines)")
                #expect(lines.contains { $0.contains("✖ Deploy") && $0.contains("failure · <1m") }, "\(lines)")
            }
        }
        #expect(ActivitiesView.linesPerActivity(2, rows: 6) == 3 && ActivitiesView.linesPerActivity(2, rows: 4) == 2
                && ActivitiesView.linesPerActivity(2, rows: 3) == 1)
    }

    @Test("ASCII glyphs for terminals without Unicode")
    func ascii() {
        let entry = ActivitiesEntry(date: at(200), activities: activities, unicode: false)
        let context = WidgetViewContext(family: .medium, size: CellSize(columns: 40, rows: 6))
        var buffer = CellBuffer(width: 40, height: 6)
        PanelView(node: ActivitiesView.node(entry, context: context)).draw(into: &buffer, in: buffer.bounds, glyphs: .ascii)
        let lines = TextBackend.lines(buffer)
        #expect(lines.contains { $0.hasPrefix("> Build") } && lines.contains { $0.hasPrefix("x Deploy") }, "\(lines)")
    }
}
