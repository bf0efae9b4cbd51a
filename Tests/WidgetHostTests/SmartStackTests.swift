import FoundationEssentials
import JSONTree
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A widget answering one fixed timeline of labelled entries with relevance.
private struct Scripted: Sendable {
    struct Entry: TimelineEntry {
        var date: Date
        var text: String
        var relevance: TimelineEntryRelevance?
    }

    struct Provider: TimelineProvider {
        let entries: [Entry]
        func placeholder(in context: Context) -> Entry { Entry(date: .distantPast, text: "loading") }
        func snapshot(in context: Context) async -> Entry { entries[0] }
        func timeline(in context: Context) async throws -> Timeline<Entry> { Timeline(entries: entries, policy: .never) }
    }

    /// `(seconds after the epoch, text, score, duration)`.
    let entries: [Entry]
    init(_ entries: [(TimeInterval, String, Float, TimeInterval)], kind: String? = nil) {
        self.entries = entries.map { Entry(date: at($0.0), text: $0.1, relevance: TimelineEntryRelevance(score: $0.2, duration: $0.3)) }
        self.kind = kind ?? "scripted-" + (entries.first?.1.prefix(1) ?? "")
    }

    /// Relevance is relative within a kind: each child is a kind of its own unless told.
    var kind = "scripted"

    var widget: TerminalWidget {
        TerminalWidget(kind: kind, displayName: "Scripted", makeProvider: { [entries] _ in AnyTimelineProvider(Provider(entries: entries)) },
                       view: { entry, _ in .centeredLines([((entry as? Entry)?.text ?? "?", CellStyle(.foreground))]) })
    }
}

/// A dashboard of one stack panel holding `children` (title, widget).
@MainActor
private func stackDashboard(_ children: [(String, Scripted)], clock: ManualClock,
                            size: TerminalSize = TerminalSize(columns: 40, rows: 7), smartRotate: Bool = true) -> DashboardUnderTest {
    let dashboard = DashboardUnderTest(size: size, clock: clock)
    dashboard.install([PreparedPanel.of(children.map { ($0.0, $0.1.widget) }, family: .medium, smartRotate: smartRotate)])
    return dashboard
}

/// What the stack panel shows: its border's title, then each non-blank row inside, trimmed
/// ("┌ A · B 2/2 ───┐ | B | B now": the title row of the member shown, then its content).
@MainActor
private func shown(_ dashboard: DashboardUnderTest) -> String {
    let lines = TextBackend.lines(dashboard.render())
    func trimmed(_ line: String) -> String {
        let blank: (Character) -> Bool = { $0 == "│" || $0 == " " }
        return String(String(line.drop(while: blank).reversed()).drop(while: blank).reversed())
    }
    return ([lines[0]] + lines[1..<5].map(trimmed).filter { !$0.isEmpty }).joined(separator: " | ")
}

@Suite("Smart Stack", .serialized)
@MainActor
struct SmartStackTests {
    @Test("shows the most relevant child, rotating when relevance changes; a tie keeps the child shown")
    func rotatesByRelevance() async {
        let clock = ManualClock(now: at(0))
        // Relevance is relative to each provider's highest score: A 0.2 → 1.0 at 60 s; B 1.0 → 0.2 at 120 s.
        let a = Scripted([(0, "A calm", 2, 0), (60, "A busy", 10, 0)])
        let b = Scripted([(0, "B now", 5, 0), (120, "B later", 1, 0)])
        let dashboard = stackDashboard([("A", a), ("B", b)], clock: clock)
        await dashboard.settle()
        #expect(shown(dashboard).hasPrefix("┌ A · B 2/2 "))
        #expect(shown(dashboard).hasSuffix("| B | B now"))
        clock.advance(to: at(60))
        await dashboard.settle()
        #expect(shown(dashboard).hasSuffix("| B | B now"), "1.0 against 1.0: the child shown stays")
        clock.advance(to: at(120))
        await dashboard.settle()
        #expect(shown(dashboard).hasPrefix("┌ A · B 1/2 "))
        #expect(shown(dashboard).hasSuffix("| A | A busy"))
    }

    @Test("two children of one kind compare by their scores on the kind's scale: the healthier hero wins (issue 26, item 6)")
    func oneKindOneScale() async {
        let clock = ManualClock(now: at(0))
        // Per panel, each child's only score would be its own highest: 1 against 1, a tie.
        let weak = Scripted([(0, "weak hero", 0.3, 0)], kind: "hero-like")
        let strong = Scripted([(0, "strong hero", 0.9, 0)], kind: "hero-like")
        let dashboard = stackDashboard([("Weak", weak), ("Strong", strong)], clock: clock)
        await dashboard.settle()
        #expect(shown(dashboard).hasSuffix("| Strong | strong hero"), "\(shown(dashboard))")
    }

    @Test("\"smartRotate\": false keeps the child shown whatever the relevances; [ and ] still flip")
    func smartRotateOff() async {
        let clock = ManualClock(now: at(0))
        let a = Scripted([(0, "A calm", 1, 0)])
        let b = Scripted([(0, "B now", 5, 0), (60, "B more", 9, 0)])
        let dashboard = stackDashboard([("A", a), ("B", b)], clock: clock, smartRotate: false)
        await dashboard.settle()
        #expect(shown(dashboard).hasSuffix("| A | A calm"), "\(shown(dashboard))")
        clock.advance(to: at(60))
        await dashboard.settle()
        #expect(shown(dashboard).hasSuffix("| A | A calm"), "\(shown(dashboard))")
        dashboard.press(.character("]"))
        #expect(shown(dashboard).hasSuffix("| B | B more"), "\(shown(dashboard))")
        clock.advance(to: at(120))
        await dashboard.settle()
        #expect(shown(dashboard).hasSuffix("| B | B more"), "the flip holds")
    }

    @Test("a relevance whose duration runs out rotates the stack at that moment, with a wake-up of its own")
    func durationRunsOut() async {
        let clock = ManualClock(now: at(0))
        let a = Scripted([(0, "A", 1, 0), (1000, "A later", 2, 0)])
        let b = Scripted([(0, "B for 90 s", 5, 90)])
        let dashboard = stackDashboard([("A", a), ("B", b)], clock: clock)
        await dashboard.settle()
        #expect(shown(dashboard).hasSuffix("B for 90 s"))
        #expect(clock.nextScheduledDate == at(60), "the status clock's minute comes first")
        clock.advance(to: at(60))
        await dashboard.settle()
        #expect(clock.nextScheduledDate == at(90), "the stack wakes when B's relevance ends")
        clock.advance(to: at(90))
        #expect(shown(dashboard).hasSuffix("| A | A"))
        #expect(shown(dashboard).hasPrefix("┌ A · B 1/2 "))
    }

    @Test("[ and ] flip the focused stack by hand; the choice holds until a relevance changes")
    func manualFlip() async {
        let clock = ManualClock(now: at(0))
        // B's entry at 30 s keeps its relevance: the panel changes, the manual choice holds.
        let a = Scripted([(0, "A one", 2, 0), (60, "A two", 3, 0), (120, "A top", 10, 0)])
        let b = Scripted([(0, "B one", 5, 0), (30, "B two", 5, 0)])
        let c = Scripted([(0, "C one", 1, 0), (1000, "C top", 10, 0)])
        let dashboard = stackDashboard([("A", a), ("B", b), ("C", c)], clock: clock)
        await dashboard.settle()
        #expect(shown(dashboard).hasPrefix("┌ A · B · C 2/3 "))
        dashboard.press(.character("]"))
        #expect(shown(dashboard).hasPrefix("┌ A · B · C 3/3 "))
        dashboard.press(.character("]"))
        #expect(shown(dashboard).hasPrefix("┌ A · B · C 1/3 "), "] wraps around")
        dashboard.press(.character("["))
        dashboard.press(.character("["))
        #expect(shown(dashboard).hasPrefix("┌ A · B · C 2/3 "), "[ goes back, wrapping too")
        dashboard.press(.character("["))
        #expect(shown(dashboard).hasSuffix("| A | A one"))
        clock.advance(to: at(30))
        await dashboard.settle()
        #expect(shown(dashboard).hasSuffix("| A | A one"), "B's new entry has the same relevance: the flip holds")
        clock.advance(to: at(60))
        await dashboard.settle()
        #expect(shown(dashboard).hasSuffix("| B | B two"), "A's relevance changed: the most relevant child is back")
    }

    @Test("a relevance running out ends a flip by hand too")
    func durationEndsFlip() async {
        let clock = ManualClock(now: at(0))
        let a = Scripted([(0, "A half", 1, 0), (1000, "A later", 2, 0)])
        let b = Scripted([(0, "B for 90 s", 5, 90)])
        let c = Scripted([(0, "C quarter", 1, 0), (1000, "C later", 4, 0)])
        let dashboard = stackDashboard([("A", a), ("B", b), ("C", c)], clock: clock)
        await dashboard.settle()
        #expect(shown(dashboard).hasSuffix("| B | B for 90 s"))
        dashboard.press(.character("]"))
        #expect(shown(dashboard).hasSuffix("| C | C quarter"))
        clock.advance(to: at(60))
        await dashboard.settle()
        #expect(shown(dashboard).hasSuffix("| C | C quarter"), "nothing changed: the flip holds")
        #expect(clock.nextScheduledDate == at(90), "still woken when B's relevance ends")
        clock.advance(to: at(90))
        #expect(shown(dashboard).hasSuffix("| A | A half"), "B's relevance ended: A (0.5) beats C (0.25)")
    }

    @Test("[ and ] do nothing on a panel that is not a stack")
    func flipOnlyStacks() async {
        let clock = ManualClock(now: at(0))
        let dashboard = stackDashboard([("A", Scripted([(0, "A only", 1, 0)]))], clock: clock)
        await dashboard.settle()
        dashboard.press(.character("]"))
        #expect(shown(dashboard).hasPrefix("┌ A ─"))
        #expect(shown(dashboard).hasSuffix("| A only"))
    }

    @Test("frame: one child fills the stack, its title says which of N")
    func frame() async {
        let clock = ManualClock(now: at(0))
        let a = Scripted([(0, "first child", 1, 0)])
        let b = Scripted([(0, "second child 🐙", 1, 0)])
        let dashboard = stackDashboard([("Octo", b), ("Cake", a)], clock: clock)
        await dashboard.settle()
        expectFrame(dashboard.render(), equals: [
            "┌ Octo · Cake 1/2 ─────────────────────┐",
            "│Octo                                  │",
            "│                                      │",
            "│           second child 🐙            │",
            "│                                      │",
            "└──────────────────────────────────────┘",
            " widgethost │ Oc… 08:00  ? help  q quit",
        ])
        // A title too long for the border is cut; the position stays.
        let long = stackDashboard([("Octo 🐙 the eight-armed ranger of the deep", b), ("Cake", a)], clock: clock)
        await long.settle()
        expectFrame(long.render(), equals: [
            "┌ Octo 🐙 the eight-armed ranger … 1/2 ┐",
            "│Octo 🐙 the eight-armed ranger of the…│",
            "│                                      │",
            "│           second child 🐙            │",
            "│                                      │",
            "└──────────────────────────────────────┘",
            " widgethost │ Oc… 08:00  ? help  q quit",
        ])
    }

    @Test("a stack of one, validated or built by hand, is shown as its widget: the same frame, no title row, no position, [ ] do nothing")
    func stackOfOne() async throws {
        let clock = ManualClock(now: at(0))
        func dashboard(_ panel: PanelConfig) -> DashboardUnderTest {
            let dashboard = DashboardUnderTest(size: TerminalSize(columns: 40, rows: 7), clock: clock)
            let widgets = Catalog.builtin().bind(WidgetContext(center: dashboard.center, now: { clock.now }, environment: ["TZ": "UTC"]))
            dashboard.build(DashboardConfig(panels: [panel]), widgets: widgets)
            return dashboard
        }
        let json = #"{"panels": [{"kind": "stack", "panels": [{"kind": "clock", "title": "Here", "options": {"timeZone": "UTC"}}]}]}"#
        let report = Catalog.builtin().validator(isKnownTimeZone: { _ in true }).validate(try JSONParser().parse(json))
        let validated = try #require(report.config?.panels.first)
        #expect(validated.kind == "clock" && !validated.isStack)
        let byHand = PanelConfig(kind: "stack", family: .medium, children: [validated])
        #expect(!byHand.isStack && byHand.members == [validated])
        let plain = dashboard(validated)
        let stacked = dashboard(byHand)
        await plain.settle()
        await stacked.settle()
        #expect(stacked.panels[0].members.count == 1 && !stacked.panels[0].isStack && stacked.panels[0].title == "Here")
        stacked.press(.character("]"))
        #expect(TextBackend.lines(stacked.render()) == TextBackend.lines(plain.render()))
        #expect(TextBackend.lines(plain.render())[0].hasPrefix("┌ Here ─"))
    }

    @Test("? lists [ and ]")
    func help() async {
        let dashboard = stackDashboard([("A", Scripted([(0, "A", 1, 0)]))], clock: ManualClock(now: at(0)),
                                       size: TerminalSize(columns: 80, rows: 24))
        dashboard.press(.character("?"))
        #expect(TextBackend.lines(dashboard.render()).contains { $0.contains("[ ]") && $0.contains("flip through the focused stack") })
    }
}

@Suite("Smart Stack titles")
@MainActor
struct SmartStackTitleTests {
    @Test("an untitled stack is titled by its children's titles joined by ' · ' (title, else title option, else display name)")
    func untitled() {
        let widgets = Catalog.builtin().bind()
        let children = [PanelConfig(kind: "leaderboard", family: .medium, title: "Top rangers"),
                        PanelConfig(kind: "clock", family: .medium, options: ["timeZone": .string("Asia/Tokyo")]),
                        PanelConfig(kind: "system", family: .medium)]
        #expect(DashboardBuilder.title(of: PanelConfig(kind: "stack", family: .medium, children: children), widgets: widgets)
                == "Top rangers · Asia/Tokyo · System")
        #expect(DashboardBuilder.title(of: PanelConfig(kind: "stack", family: .medium, title: "Mine", children: children), widgets: widgets)
                == "Mine")
    }
}

