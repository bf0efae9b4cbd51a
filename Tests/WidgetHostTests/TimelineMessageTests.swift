import FoundationEssentials
import Synchronization
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A widget whose provider answers "answer N" for its Nth call, with no next reload.
private final class Counter: Sendable {
    struct Entry: TimelineEntry { var date: Date; var text: String }
    let calls = Atomic<Int>(0)

    struct Provider: TimelineProvider {
        let counter: Counter
        func placeholder(in context: Context) -> Entry { Entry(date: .distantPast, text: "loading") }
        func snapshot(in context: Context) async -> Entry { placeholder(in: context) }
        func timeline(in context: Context) async throws -> Timeline<Entry> {
            let n = counter.calls.add(1, ordering: .relaxed).newValue
            return Timeline(entries: [Entry(date: .distantPast, text: "answer \(n)")], policy: .never)
        }
    }

    var widget: TerminalWidget {
        TerminalWidget(kind: "counter", displayName: "Counter", makeProvider: { _ in AnyTimelineProvider(Provider(counter: self)) },
                       view: { entry, _ in .centeredLines([((entry as? Entry)?.text ?? "?", CellStyle(.foreground))]) })
    }
}

/// A dashboard of one counter panel in a program whose messages are recorded.
@MainActor
private final class Recorded {
    let clock = ManualClock(now: at(0))
    let running: DashboardUnderTest
    let counter = Counter()
    let id: WidgetInstanceID
    var messages: [DashboardMessage] = []

    init() {
        running = DashboardUnderTest(size: TerminalSize(columns: 40, rows: 8), clock: clock)
        running.install([PreparedPanel.of([("Counter", counter.widget)], family: .medium)])
        id = running.panels[0].members[0].id
        running.program.onMessage = { [unowned self] message in messages.append(message) }
    }

    /// The program's dashboard now, a value of its own.
    var state: Dashboard { running.dashboard }

    var text: String { Self.text(state, at: clock.now) }

    static func text(_ state: Dashboard, at now: Date) -> String {
        TextBackend.lines(state.render(at: now)).joined(separator: "\n")
    }
}

@Suite("Timelines as messages", .serialized)
@MainActor
struct TimelineMessageTests {
    @Test("a WidgetCenter request is a message; update answers it with the provider call as an effect, not a task of its own")
    func requestIsAMessage() async {
        let run = Recorded()
        await run.running.settle()
        #expect(run.text.contains("answer 1"))
        run.clock.advance(to: at(10))  // past the minimum interval
        var state = run.state
        let effects = state.update(.reloadsRequested([.kind("counter")]), at: run.clock.now)
        let calls = effects.compactMap { if case .startProvider(let call) = $0 { call } else { nil } }
        #expect(calls.map(\.request.instance) == [run.id])
        #expect(calls.first?.request.reason == .widgetCenter)
        #expect(run.counter.calls.load(ordering: .relaxed) == 1, "update started nothing itself")
        #expect(state.timelines.runningProviderCalls == 1, "the call is awaited")
        #expect(run.state.timelines.runningProviderCalls == 0, "the program's dashboard is another value, unchanged")
    }

    @Test("a provider's answer is a message: update takes it, and drops a stale generation's")
    func answerIsAMessage() async throws {
        let run = Recorded()
        await run.running.settle()
        run.clock.advance(to: at(10))
        var state = run.state
        let effects = state.update(.reloadsRequested([.kind("counter")]), at: run.clock.now)
        guard case .startProvider(let call)? = effects.first(where: { if case .startProvider = $0 { true } else { false } }) else {
            Issue.record("no provider call in \(effects)")
            return
        }
        let timeline = try await call.provider.timeline(in: call.context)
        var stale = call.request
        stale.generation -= 1
        _ = state.update(.providerAnswered(ProviderAnswer(request: stale, result: .success(timeline))), at: run.clock.now)
        #expect(Recorded.text(state, at: run.clock.now).contains("answer 1"), "an older generation's answer is dropped")
        _ = state.update(.providerAnswered(ProviderAnswer(request: call.request, result: .success(timeline))), at: run.clock.now)
        #expect(Recorded.text(state, at: run.clock.now).contains("answer 2"))
        #expect(state.timelines.runningProviderCalls == 0)
    }

    @Test("the program's messages of a run: the answers, the status clock's text wake-up, WidgetCenter's requests")
    func messagesOfARun() async {
        let run = Recorded()
        await run.running.settle()
        run.clock.advance(to: at(60))  // the status bar's minute: text that updates itself
        await run.running.settle()
        #expect(run.messages.contains(.textsDue))
        run.running.center.reloadTimelines(ofKind: "counter")
        #expect(await eventually { run.messages.contains(.reloadsRequested([.kind("counter")])) })
        await run.running.settle()
        let answers = run.messages.compactMap { if case .providerAnswered(let answer) = $0 { answer.request } else { nil } }
        #expect(answers.filter { $0.instance == run.id }.map(\.reason) == [.initial, .widgetCenter])
        #expect(run.text.contains("answer 2"))
    }

    @Test("a real resize asks the provider again at the new size, as the environment's reload (free of the budget, not the user's)")
    func resizeAsksAgain() async {
        let run = Recorded()
        await run.running.settle()
        var state = run.state
        let effects = state.update(.resized(TerminalSize(columns: 60, rows: 12)), at: run.clock.now)
        let calls = effects.compactMap { if case .startProvider(let call) = $0, call.request.instance == run.id { call } else { nil } }
        #expect(calls.map(\.request.reason) == [.environment])
        #expect(calls.first?.context.size == CellSize(columns: 58, rows: 9), "the panel's inside at 60x12")
        #expect(calls.first?.context.isUserInitiated == false)
        let same = state.update(.resized(TerminalSize(columns: 60, rows: 12)), at: run.clock.now)
        #expect(!same.contains { if case .startProvider = $0 { true } else { false } }, "the same size asks nothing")
    }

    @Test("zoom asks the widget again at the largest family it supports and the zoomed size, free; Esc asks at its own again (issue 26, item 7)")
    func zoomAsksAtTheZoomedFamily() async {
        let run = Recorded()
        await run.running.settle()
        var state = run.state
        func calls(_ effects: [DashboardEffect]) -> [ProviderCall] {
            effects.compactMap { if case .startProvider(let call) = $0, call.request.instance == run.id { call } else { nil } }
        }
        let zoomed = calls(state.update(.key(.enter), at: run.clock.now)).map { (reason: $0.request.reason, family: $0.context.family, size: $0.context.size) }
        #expect(zoomed.map(\.reason) == [.environment], "one environment reload: free of the budget, not the user's")
        #expect(zoomed.first?.family == .extraLarge, "the largest family the counter supports, not the panel's medium")
        #expect(zoomed.first?.size == CellSize(columns: 38, rows: 5), "the zoomed panel's inside at 40x8")
        // The zoomed call answers (nothing runs it: the state is a value of its own).
        let call = calls(state.update(.key(.enter), at: run.clock.now))
        #expect(call.isEmpty, "Enter again while zoomed asks nothing")
        let request = ReloadRequest(instance: run.id, generation: 2, reason: .environment)
        _ = state.update(.providerAnswered(ProviderAnswer(request: request, result: .success(AnyTimeline(
            entries: [Counter.Entry(date: .distantPast, text: "zoomed")], policy: .never)))), at: run.clock.now)
        let back = calls(state.update(.key(.escape), at: run.clock.now)).map(\.context.family)
        #expect(back == [.medium], "asked at its own family again")
        let again = calls(state.update(.key(.escape), at: run.clock.now))
        #expect(again.isEmpty, "nothing changed: nothing asked")
    }

    @Test("update is pure: r and the clock being set change the timelines inside update, whose effects carry the provider calls")
    func keysReloadInsideUpdate() async {
        let run = Recorded()
        await run.running.settle()
        var state = run.state
        let effects = state.update(.key(.character("r")), at: run.clock.now)
        let calls = effects.compactMap { if case .startProvider(let call) = $0 { call.request } else { nil } }
        #expect(calls.map(\.instance) == [run.id])
        #expect(calls.first?.reason == .user)
        #expect(effects.contains(.present))
        #expect(run.counter.calls.load(ordering: .relaxed) == 1, "update started nothing itself")
        var settled = run.state
        let set = settled.update(.clockSet(step: 0), at: run.clock.now)
        #expect(set.contains { if case .startProvider(let call) = $0 { call.request.reason == .environment } else { false } },
                "the counter is asked again at once, as an environment change")
    }
}

/// A widget kind whose factory counts the providers it makes (a factory's side effect).
private final class CountingFactory: Sendable {
    let made = Atomic<Int>(0)

    var widget: TerminalWidget {
        TerminalWidget(kind: "counted", displayName: "Counted", makeProvider: { [self] _ in
            made.add(1, ordering: .relaxed)
            return AnyTimelineProvider(Counter.Provider(counter: Counter()))
        }, view: { _, _ in .centeredLines([("counted", CellStyle(.foreground))]) })
    }
}

@Suite("A config reload's factories run in an effect", .serialized)
@MainActor
struct PanelsBuiltTests {
    @Test("update(.configLoaded) makes no provider: it asks for .buildPanels, whose answer .panelsBuilt installs the panels")
    func factoriesRunOutsideUpdate() async throws {
        let clock = ManualClock(now: at(0))
        let factory = CountingFactory()
        let panelFactory = PanelFactory(widgets: BoundWidgets(widgets: [factory.widget]))
        var dashboard = Dashboard(size: TerminalSize(columns: 40, rows: 8), glyphs: .unicode, themes: [Theme.default],
                                  environment: ["TZ": "UTC"], clock: clock)
        dashboard.panelFactory = panelFactory
        let config = DashboardConfig(panels: [PanelConfig(kind: "counted", family: .medium, title: "One"),
                                              PanelConfig(kind: "counted", family: .medium, title: "Two")])

        // `update` alone, as a pure step: the effect names the work, nothing is made yet.
        let effects = dashboard.update(.configLoaded(config, Theme.default), at: clock.now)
        #expect(effects.contains(.buildPanels(config)))
        #expect(factory.made.load(ordering: .relaxed) == 0, "update ran a widget factory")
        #expect(dashboard.panels.isEmpty)

        // The program runs the effect: the factories run there, and the panels arrive as a message.
        let running = DashboardUnderTest(size: TerminalSize(columns: 40, rows: 8), clock: clock, panelFactory: panelFactory)
        var messages: [DashboardMessage] = []
        running.program.onMessage = { messages.append($0) }
        running.send(.configLoaded(config, Theme.default))
        #expect(factory.made.load(ordering: .relaxed) == 2)
        #expect(running.panels.map(\.title) == ["One", "Two"])
        #expect(messages.contains { if case .panelsBuilt(let prepared) = $0 { prepared.count == 2 } else { false } })

        // The same config again: both panels kept, no provider made.
        running.send(.configLoaded(config, Theme.default))
        #expect(factory.made.load(ordering: .relaxed) == 2, "an unchanged panel is kept, not rebuilt")
    }
}
