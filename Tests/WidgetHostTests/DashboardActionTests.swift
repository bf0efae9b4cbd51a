import FoundationEssentials
import Synchronization
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A widget with actions: `+` runs `perform`, `e` asks for a terminal program, `r` is titled.
private final class ActionProbe: Sendable {
    struct Entry: TimelineEntry { var date: Date; var text: String }
    let reloads = Atomic<Int>(0)
    /// Each timeline call's `isUserInitiated`, in order.
    let userInitiated = Mutex<[Bool]>([])
    let performed = Mutex<[WidgetActionContext]>([])
    let perform: @Sendable () async throws -> Void

    init(perform: @escaping @Sendable () async throws -> Void = {}) { self.perform = perform }

    struct Provider: TimelineProvider {
        let probe: ActionProbe
        func placeholder(in context: Context) -> Entry { Entry(date: .distantPast, text: "loading") }
        func snapshot(in context: Context) async -> Entry { placeholder(in: context) }
        func timeline(in context: Context) async throws -> Timeline<Entry> {
            let n = probe.reloads.add(1, ordering: .relaxed).newValue
            probe.userInitiated.withLock { $0.append(context.isUserInitiated) }
            return Timeline(entries: [Entry(date: .distantPast, text: "reload \(n)")], policy: .never)
        }
    }

    var widget: TerminalWidget {
        let manifest = WidgetManifest(kind: "probe", displayName: "Probe", description: "", defaultFamily: .medium,
                                      actions: [WidgetAction(key: "+", title: "add one", timeoutSeconds: 0.3),
                                                WidgetAction(key: "e", title: "edit"),
                                                WidgetAction(key: "r", title: "run now")])
        return TerminalWidget(manifest: manifest, makeProvider: { _ in AnyTimelineProvider(Provider(probe: self)) },
                              view: { entry, _ in .centeredLines([((entry as? Entry)?.text ?? "?", CellStyle(.foreground))]) })
            .action("+") { [self] context in
                performed.withLock { $0.append(context) }
                try await perform()
            }
            .action("e", .terminal { context in ["editor", context.options.string("file") ?? "?"] })
    }
}

@MainActor
private func makeDashboard(_ probe: ActionProbe, rows: Int = 8, clock: ManualClock = ManualClock(now: at(0))) -> DashboardUnderTest {
    let dashboard = DashboardUnderTest(size: TerminalSize(columns: 70, rows: rows), clock: clock)
    dashboard.install([PreparedPanel.of([("Probe", probe.widget)], family: .medium, options: ["file": .string("/tmp/notes.txt")])])
    return dashboard
}

private func lines(_ dashboard: DashboardUnderTest) -> [String] {
    MainActor.assumeIsolated { TextBackend.lines(dashboard.render()) }
}

@Suite("Dashboard: widget actions", .serialized)
@MainActor
struct DashboardActionTests {
    @Test("the status bar shows the focused panel's keys and ? lists them after the host's")
    func keyHints() async {
        let dashboard = makeDashboard(ActionProbe(), rows: 24)
        await dashboard.settle()
        #expect(lines(dashboard).last?.contains("+ add one  e edit  r run now") == true)
        dashboard.press(.character("?"))
        let help = lines(dashboard)
        #expect(help.contains { $0.contains("on Probe:") })
        #expect(help.contains { $0.contains("+") && $0.contains("add one") })
        #expect(help.contains { $0.contains("reload the focused panel") }, "the host's own keys are still listed")
        #expect(help.contains { $0.contains(" r ") && $0.contains("run now") }, "the r title the status bar shows is listed too (issue 22, item 13)")
    }

    @Test("an action runs off the loop, shows while it runs, and reloads the panel after a success (a reload the user initiated)")
    func success() async throws {
        let gate = Gate()
        let probe = ActionProbe { await gate.wait() }
        let dashboard = makeDashboard(probe)
        await dashboard.settle()
        #expect(probe.reloads.load(ordering: .relaxed) == 1)
        dashboard.press(.character("+"))
        #expect(await eventually { probe.performed.withLock { $0.count } == 1 })
        #expect(probe.performed.withLock { $0.first?.options.string("file") } == "/tmp/notes.txt", "the perform gets the panel's options")
        #expect(lines(dashboard).contains { $0.contains("add one…") }, "the panel says the action runs")
        dashboard.press(.character("+"))  // one at a time per panel
        gate.open()
        #expect(await eventually { dashboard.actionStates.isEmpty })
        await dashboard.settle()
        #expect(probe.reloads.load(ordering: .relaxed) == 2, "reloaded once after the action")
        #expect(probe.userInitiated.withLock { $0 } == [false, true], "the user pressed the key: the reload after it is theirs")
        #expect(probe.performed.withLock { $0.count } == 1, "a key pressed while it ran did nothing")
        #expect(lines(dashboard).contains { $0.contains("reload 2") })
    }

    @Test("a failure is shown on the panel and nothing else changes; the next key clears it")
    func failure() async {
        let probe = ActionProbe { throw WidgetActionError("the server said no") }
        let dashboard = makeDashboard(probe)
        await dashboard.settle()
        dashboard.press(.character("+"))
        #expect(await eventually { if case .failed? = dashboard.actionStates.values.first { true } else { false } })
        let frame = lines(dashboard)
        #expect(frame.contains { $0.contains("⚠ add one failed: the server said no") })
        #expect(frame.contains { $0.contains("reload 1") }, "the entry stays")
        await dashboard.settle()
        #expect(probe.reloads.load(ordering: .relaxed) == 1, "no reload after a failure")
        dashboard.press(.character("x"))
        #expect(!lines(dashboard).contains { $0.contains("failed") })
    }

    @Test("a perform past its timeout fails as timed out and is cancelled")
    func timeout() async {
        let cancelled = Atomic<Bool>(false)
        let probe = ActionProbe {
            do { try await Task.sleep(for: .seconds(60)) } catch { cancelled.store(true, ordering: .relaxed); throw error }
        }
        let clock = ManualClock(now: at(0))
        let dashboard = makeDashboard(probe, clock: clock)
        await dashboard.settle()
        dashboard.press(.character("+"))
        #expect(await eventually { probe.performed.withLock { $0.count } == 1 })
        // The timeout is a timer of the dashboard's clock (the loop's timerfd when running).
        clock.advance(by: 0.2)
        for _ in 0..<10 { await Task.yield() }
        #expect(dashboard.actionStates.values.first == .running(title: "add one"), "not before its 0.3 s")
        clock.advance(by: 0.2)
        #expect(await eventually { if case .failed? = dashboard.actionStates.values.first { true } else { false } })
        #expect(lines(dashboard).contains { $0.contains("add one failed: timed out after 0.3 s") }, "\(lines(dashboard))")
        #expect(await eventually { cancelled.load(ordering: .relaxed) })
    }

    @Test("a terminal action hands its program to the runner, then reloads; a failing program is shown")
    func terminal() async {
        let probe = ActionProbe()
        let dashboard = makeDashboard(probe)
        await dashboard.settle()
        var ran: [[String]] = []
        let host = dashboard.host
        host.terminalAnswer = { ran.append($0); return nil }
        dashboard.press(.character("e"))
        #expect(ran == [["editor", "/tmp/notes.txt"]])
        await dashboard.settle()
        #expect(probe.reloads.load(ordering: .relaxed) == 2)
        host.terminalAnswer = { _ in "editor exited with status 1" }
        dashboard.press(.character("e"))
        #expect(lines(dashboard).contains { $0.contains("edit failed: editor exited with status 1") })
    }

    @Test("action keys never shadow the host's: q, ?, r, t, p, h… keep their meaning")
    func reservedKeys() {
        let manifest = WidgetManifest(kind: "bad", displayName: "Bad", description: "", defaultFamily: .small,
                                      actions: [WidgetAction(key: "q", title: "quit?"), WidgetAction(key: "r", title: "run now"),
                                                WidgetAction(key: "+", title: "ok", timeoutSeconds: 0)])
        #expect(manifest.problems.contains { $0.contains("'q' is one of the host's own keys") })
        #expect(!manifest.problems.contains { $0.contains("'r'") }, "r may be titled (the panel's reload)")
        #expect(manifest.problems.contains { $0.contains("timeout") })
        // A titled r is still the host's reload, not a perform.
        let probe = ActionProbe()
        let dashboard = makeDashboard(probe)
        var state = dashboard.dashboard
        let performed = state.performAction(key: "r")
        #expect(!performed)
    }
}

/// Opens once; waiters before and after go on.
private final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))
    func wait() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { s in
                if s.open { return true }
                s.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
    func open() {
        let waiters = state.withLock { s in
            s.open = true
            defer { s.waiters = [] }
            return s.waiters
        }
        waiters.forEach { $0.resume() }
    }
}
