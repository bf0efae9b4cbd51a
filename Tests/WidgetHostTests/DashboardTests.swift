import FoundationEssentials
import JSONTree
import Synchronization
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A widget whose provider answers from a script and records its contexts.
private final class Probe: Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }
    struct Entry: TimelineEntry { var date: Date; var text: String }

    let script: Mutex<[Result<[Entry], Failure>]>
    let contexts = Mutex<[TimelineProviderContext]>([])
    /// A view 30 rows tall that numbers its rows out of the height it is asked for.
    let tall: Bool

    init(_ script: [Result<[Entry], Failure>], tall: Bool = false) {
        self.script = Mutex(script)
        self.tall = tall
    }

    struct Provider: TimelineProvider {
        let probe: Probe
        func placeholder(in context: Context) -> Entry { Entry(date: .distantPast, text: "loading") }
        func snapshot(in context: Context) async -> Entry { Entry(date: .distantPast, text: "snapshot") }
        func timeline(in context: Context) async throws -> Timeline<Entry> {
            probe.contexts.withLock { $0.append(context) }
            let next = probe.script.withLock { $0.isEmpty ? .success([]) : $0.removeFirst() }
            return Timeline(entries: try next.get(), policy: .never)
        }
    }

    var widget: TerminalWidget {
        TerminalWidget(kind: "probe", displayName: "Probe", makeProvider: { _ in AnyTimelineProvider(Provider(probe: self)) },
                       view: { [tall] entry, context in
                           let text = (entry as? Entry)?.text ?? "?"
                           if tall {
                               let rows = context.size.rows
                               return PanelView(contentHeight: 30, node: .vstack((0..<rows).map { .text("\(text) row \($0 + 1) of \(rows)") }))
                           }
                           return .centeredLines([(text, CellStyle(context.isPlaceholder ? .placeholder : .foreground))])
                       })
    }
}

@MainActor
private func makeDashboard(size: TerminalSize, probes: [(Probe, WidgetFamily, String)],
                           clock: ManualClock = ManualClock(now: at(0))) -> DashboardUnderTest {
    let dashboard = DashboardUnderTest(size: size, clock: clock)
    dashboard.install(probes.map { probe, family, title in PreparedPanel.of([(title, probe.widget)], family: family) })
    return dashboard
}

private func text(_ dashboard: DashboardUnderTest) -> [String] {
    MainActor.assumeIsolated { TextBackend.lines(dashboard.render()) }
}

@Suite("Dashboard", .serialized)
@MainActor
struct DashboardTests {
    @Test("draws the placeholder while loading, then the entry, with the status bar clock")
    func placeholderThenEntry() async {
        let probe = Probe([.success([.init(date: at(0), text: "hello 🐼 漢字")])])
        let dashboard = makeDashboard(size: TerminalSize(columns: 40, rows: 7), probes: [(probe, .medium, "Probe")])
        let loading = dashboard.render()
        // The placeholder entry ("loading") is drawn redacted by the host, whatever the view drew.
        #expect(TextBackend.lines(loading)[2] == "│               ▒▒▒▒▒▒▒                │")
        #expect(loading[16, 2].style.role == .placeholder)
        await dashboard.settle()
        expectFrame(dashboard.render(), equals: [
            "┌ Probe ───────────────────────────────┐",
            "│                                      │",
            "│            hello 🐼 漢字             │",
            "│                                      │",
            "│                                      │",
            "└──────────────────────────────────────┘",
            " widgethost │ Pr… 08:00  ? help  q quit",
        ])
    }

    @Test("Tab moves focus and the focused border; Shift-Tab goes back")
    func focus() async {
        let dashboard = makeDashboard(size: TerminalSize(columns: 60, rows: 10),
                                      probes: [(Probe([]), .small, "One"), (Probe([]), .small, "Two")])
        await dashboard.settle()
        #expect(text(dashboard).last?.contains("│ One") == true)
        #expect(dashboard.render()[0, 0].style.role == .borderFocused)
        dashboard.press(.tab)
        #expect(text(dashboard).last?.contains("│ Two") == true)
        #expect(dashboard.render()[0, 0].style.role == .border)
        dashboard.press(.backTab)
        #expect(dashboard.focus == 0)
        dashboard.press(.right)
        #expect(dashboard.focus == 1, "arrows move to the neighbour")
        dashboard.press(.character("h"))
        #expect(dashboard.focus == 0)
    }

    @Test("? shows the help over the panels and any key closes it")
    func help() async {
        let dashboard = makeDashboard(size: TerminalSize(columns: 80, rows: 24), probes: [(Probe([]), .large, "Board")])
        dashboard.press(.character("?"))
        let frame = text(dashboard)
        #expect(frame.contains { $0.contains("┌ Keys") })
        #expect(frame.contains { $0.contains("reload the focused panel") })
        dashboard.press(.character("x"))
        #expect(!text(dashboard).contains { $0.contains("┌ Keys") })
    }

    @Test("Enter zooms the focused panel to the whole screen, Esc goes back")
    func zoom() async {
        let dashboard = makeDashboard(size: TerminalSize(columns: 60, rows: 10),
                                      probes: [(Probe([]), .small, "One"), (Probe([]), .small, "Two")])
        dashboard.press(.tab)
        dashboard.press(.enter)
        let zoomed = text(dashboard)
        #expect(zoomed[0].hasPrefix("┌ Two ─"))
        #expect(zoomed[0].hasSuffix("┐") && zoomed[0].count == 60)
        #expect(zoomed.last?.contains("zoomed") == true)
        dashboard.press(.escape)
        #expect(text(dashboard)[0].hasPrefix("┌ One"))
    }

    @Test("a zoomed view taller than the screen is asked for the height it is drawn at, and scrolls through it")
    func scrolledViewSize() async {
        let probe = Probe([.success([.init(date: at(0), text: "tall")])], tall: true)
        let dashboard = makeDashboard(size: TerminalSize(columns: 40, rows: 12), probes: [(probe, .large, "Tall")])
        await dashboard.settle()
        dashboard.press(.enter)
        // 9 rows inside the border: the first 9 of the view's 30.
        #expect(text(dashboard)[1] == "│tall row 1 of 30                      │", "\(text(dashboard).joined(separator: "\n"))")
        for _ in 0..<30 { dashboard.press(.down) }
        let bottom = text(dashboard)
        #expect(bottom[1] == "│tall row 22 of 30                     │", "\(bottom.joined(separator: "\n"))")
        #expect(bottom[9] == "│tall row 30 of 30                     │", "\(bottom.joined(separator: "\n"))")
    }

    @Test("resizing down to 1x1 and 0x0 never crashes, shows a notice, and recovers")
    func tinySizes() async {
        let dashboard = makeDashboard(size: TerminalSize(columns: 80, rows: 24),
                                      probes: [(Probe([]), .large, "Board"), (Probe([]), .small, "Clock")])
        for (w, h) in [(1, 1), (0, 0), (19, 24), (80, 3), (5, 2), (20, 7), (200, 60), (80, 24)] {
            dashboard.resize(to: TerminalSize(columns: w, rows: h))
            let frame = dashboard.render()
            #expect(frame.width == w && frame.height == h)
        }
        dashboard.resize(to: TerminalSize(columns: 30, rows: 5))
        #expect(text(dashboard).contains { $0.contains("terminal too small") })
        dashboard.resize(to: TerminalSize(columns: 80, rows: 24))
        #expect(text(dashboard)[0].hasPrefix("┌ Board"))
    }

    @Test("a failed reload keeps the entry and shows the error and the data's age on the border")
    func failureFooter() async {
        let clock = ManualClock(now: at(0))
        let probe = Probe([.success([.init(date: at(0), text: "board")]), .failure(.init(description: "connection refused"))])
        let dashboard = makeDashboard(size: TerminalSize(columns: 50, rows: 8), probes: [(probe, .medium, "Board")], clock: clock)
        await dashboard.settle()
        clock.advance(by: 300)
        dashboard.press(.character("r"))
        await dashboard.settle()
        let frame = text(dashboard)
        #expect(frame.contains { $0.contains("board") }, "the last good entry stays")
        #expect(frame[6].contains("⚠ connection refused · data 5m old"))
        #expect(probe.contexts.withLock { $0.map(\.isUserInitiated) } == [false, true], "r is user initiated")
        // Two wake-ups are armed: the timelines' (the retry after its backoff) and the text's
        // (the status clock's next minute). When the retry succeeds the warning goes, and only
        // the minute is left.
        #expect(clock.pendingCount == 2)
        let retry = try! #require(clock.nextScheduledDate)
        #expect(retry >= at(302.5) && retry <= at(305))
        clock.advance(to: retry)
        await dashboard.settle()
        #expect(!text(dashboard).contains { $0.contains("connection refused") })
        #expect(clock.nextScheduledDate == at(360), "nothing wakes before the next minute")
    }

    @Test("panels that do not fit are counted in the status bar, not drawn broken; Tab skips them; a larger terminal shows them")
    func panelsThatDoNotFit() async {
        // One row of small units fits 80x8; the medium panel would need a second row.
        let dashboard = makeDashboard(size: TerminalSize(columns: 80, rows: 8),
                                      probes: [(Probe([]), .small, "Zero"), (Probe([]), .small, "One"),
                                               (Probe([]), .small, "Two"), (Probe([]), .medium, "Wide")])
        await dashboard.settle()
        #expect(!text(dashboard).contains { $0.contains("terminal too small") })
        #expect(!text(dashboard).contains { $0.contains("┌ Wide") })
        #expect(text(dashboard).last?.contains("+1 panel: enlarge the terminal") == true)
        for _ in 0..<3 { dashboard.press(.tab) }
        #expect(dashboard.focus == 0, "Tab goes round the three panels shown")
        dashboard.press(.backTab)
        #expect(dashboard.focus == 2)
        dashboard.resize(to: TerminalSize(columns: 80, rows: 16))
        #expect(text(dashboard).contains { $0.contains("┌ Wide") })
        #expect(text(dashboard).last?.contains("enlarge the terminal") == false)
    }

    @Test("p pauses automatic reloads and says so in the status bar")
    func pause() async {
        let dashboard = makeDashboard(size: TerminalSize(columns: 60, rows: 8), probes: [(Probe([]), .small, "One")])
        dashboard.press(.character("p"))
        #expect(text(dashboard).last?.contains("paused") == true)
        #expect(dashboard.timelines.scheduler.automaticReloadsPaused)
        dashboard.press(.character("p"))
        #expect(text(dashboard).last?.contains("paused") == false)
    }

    @Test("q quits; t moves to the next theme")
    func quitAndTheme() async {
        let dashboard = DashboardUnderTest(size: TerminalSize(columns: 40, rows: 10), themes: [Theme.default, Theme.mono],
                                           environment: [:])
        let host = dashboard.host
        dashboard.press(.character("t"))
        dashboard.press(.character("q"))
        dashboard.press(.ctrlC)
        #expect(host.effects.filter { $0 == .quit(status: 0) }.count == 2)
        #expect(host.effects.compactMap { if case .setTheme(let theme) = $0 { theme.name } else { nil } } == [Theme.mono.name])
    }
}

@Suite("Dashboard config reload", .serialized)
@MainActor
struct DashboardReloadTests {
    @Test("a reloaded config keeps the instances of unchanged panels and replaces the others")
    func reusesUnchangedPanels() async {
        let clock = ManualClock(now: at(0))
        let dashboard = DashboardUnderTest(size: TerminalSize(columns: 80, rows: 24), clock: clock)
        let widgets = Catalog.builtin().bind(WidgetContext(center: dashboard.center, now: { clock.now }, environment: ["TZ": "UTC"]))
        func clockPanel(_ zone: String) -> PanelConfig {
            PanelConfig(kind: "clock", family: .small, title: zone,
                        options: ["timeZone": .string(zone), "seconds": .bool(false), "hour24": .bool(true), "showDate": .bool(true)])
        }
        dashboard.build(DashboardConfig(panels: [clockPanel("UTC"), clockPanel("Asia/Tokyo")]), widgets: widgets)
        await dashboard.settle()
        let first = dashboard.panels
        dashboard.build(DashboardConfig(panels: [clockPanel("UTC"), clockPanel("Europe/Berlin")]), widgets: widgets)
        let second = dashboard.panels
        #expect(second[0].members.map(\.id) == first[0].members.map(\.id), "unchanged: the same instance")
        #expect(second[1].members.map(\.id) != first[1].members.map(\.id), "changed: a new instance")
        #expect(dashboard.status(of: first[0].members[0].id)?.entry != nil, "the kept panel still shows its entry")
        #expect(dashboard.status(of: first[1].members[0].id) == nil, "the replaced instance is gone")
    }

    @Test("currentConfigurations lists the user's panels with kind, family, title and options, not the status clock")
    func currentConfigurations() async {
        let clock = ManualClock(now: at(0))
        let dashboard = DashboardUnderTest(size: TerminalSize(columns: 80, rows: 24), clock: clock)
        let widgets = Catalog.builtin().bind(WidgetContext(center: dashboard.center, now: { clock.now }, environment: ["TZ": "UTC"]))
        let options: WidgetOptions = ["timeZone": .string("Asia/Tokyo"), "seconds": .bool(true), "hour24": .bool(true),
                                            "showDate": .bool(false)]
        dashboard.build(DashboardConfig(panels: [PanelConfig(kind: "clock", family: .medium, title: "Tokyo", options: options)]),
                        widgets: widgets)
        await dashboard.settle()
        #expect(dashboard.center.currentConfigurations() == [
            WidgetCenter.WidgetInfo(kind: "clock", family: .medium, title: "Tokyo", options: options)])
    }

    @Test("currentConfigurations reports the options with the manifest's defaults filled in for those the user left out")
    func currentConfigurationsDefaults() async throws {
        let clock = ManualClock(now: at(0))
        let dashboard = DashboardUnderTest(size: TerminalSize(columns: 80, rows: 24), clock: clock)
        let catalog = Catalog.builtin()
        let widgets = catalog.bind(WidgetContext(center: dashboard.center, now: { clock.now }, environment: ["TZ": "UTC"]))
        let json = #"{"panels": [{"kind": "clock", "family": "medium", "title": "Tokyo", "options": {"timeZone": "Asia/Tokyo"}}]}"#
        let config = try #require(catalog.validator(isKnownTimeZone: { _ in true }).validate(try JSONParser().parse(json)).config)
        dashboard.build(config, widgets: widgets)
        await dashboard.settle()
        let defaults: WidgetOptions = ["timeZone": .string("Asia/Tokyo"), "seconds": .bool(false), "hour24": .bool(true),
                                       "showDate": .bool(true)]
        #expect(dashboard.center.currentConfigurations() == [
            WidgetCenter.WidgetInfo(kind: "clock", family: .medium, title: "Tokyo", options: defaults)])
    }
}
