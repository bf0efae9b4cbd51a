import FoundationEssentials
import Synchronization
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// A widget of one entry, `.never`: a stopwatch from `at(0)` (a timer date node) over a timer bar
/// from `at(0)` to `at(80)`. Its provider counts the timelines it gives.
private struct Stopwatch: TimelineProvider {
    struct Entry: TimelineEntry { var date: Date }
    let calls: Calls
    func placeholder(in context: Context) -> Entry { Entry(date: .distantPast) }
    func snapshot(in context: Context) async -> Entry { Entry(date: at(0)) }
    func timeline(in context: Context) async throws -> Timeline<Entry> {
        calls.count.add(1, ordering: .relaxed)
        return Timeline(entries: [Entry(date: at(0))], policy: .never)
    }

    final class Calls: Sendable { let count = Atomic<Int>(0) }

    static func widget(_ calls: Calls, kind: String = "stopwatch",
                       node: ViewNode = .vstack([.date(at(0), style: .timer), .bar(ViewNode.Bar.timer(from: at(0), to: at(80))!)]))
        -> TerminalWidget {
        TerminalWidget(manifest: WidgetManifest(kind: kind, displayName: kind, description: "", defaultFamily: .small, usesNetwork: false),
                       makeProvider: { _ in AnyTimelineProvider(Stopwatch(calls: calls)) },
                       view: { _, _ in PanelView(node: node) })
    }
}


@MainActor
private func stopwatchBoard(_ clock: ManualClock, calls: Stopwatch.Calls) async -> DashboardUnderTest {
    let board = DashboardUnderTest(size: TerminalSize(columns: 40, rows: 8), clock: clock)
    board.install([PreparedPanel.of([("Watch", Stopwatch.widget(calls))], family: .small),
                   PreparedPanel.of([("Note", Stopwatch.widget(Stopwatch.Calls(), kind: "note", node: .text("hi")))], family: .small)])
    await board.settle()
    return board
}

/// The first content row of the first panel, and the row under it (the timer bar).
@MainActor
private func watch(_ board: DashboardUnderTest) -> (text: String, bar: String) {
    let lines = TextBackend.lines(board.render())
    func inner(_ line: String) -> String {
        String(line.dropFirst().prefix { $0 != "│" }.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
    return (inner(lines[1]), inner(lines[2]))
}

@Suite("Text that updates itself: drawn at the frame's time, one wake-up for the next change on screen", .serialized)
@MainActor
struct TextUpdatesTests {
    @Test("a timer node's text and a timer bar change at the frame's time with no reload and no provider call")
    func changesWithoutReload() async {
        let clock = ManualClock(now: at(0))
        let calls = Stopwatch.Calls()
        let board = await stopwatchBoard(clock, calls: calls)
        #expect(watch(board).text == "0:00")
        clock.advance(by: 1)
        await board.settle()
        #expect(watch(board).text == "0:01")
        clock.advance(by: 39)
        await board.settle()
        #expect(watch(board) == ("0:40", "█████████"), "half of 80 s: half of the bar's 18 cells")
        clock.advance(by: 3600)
        await board.settle()
        #expect(watch(board).text == "1:00:40")
        #expect(calls.count.load(ordering: .relaxed) == 1, "one timeline, never asked again")
        #expect(board.timelines.status(of: board.panels[0].members[0].id)?.entry != nil)
    }

    @Test("one wake-up, for the next change only: the next second; off screen (zoomed away), only the status bar's minute")
    func wakesForNextChangeOnScreen() async {
        let clock = ManualClock(now: at(0.25))
        let calls = Stopwatch.Calls()
        let board = await stopwatchBoard(clock, calls: calls)
        // The bar (18 cells over 80 s) gains an eighth every 0.55 s: its half-step comes first.
        #expect(board.textWakeDate == at(80.0 / 144 / 2))
        clock.advance(to: at(0.5))
        await board.settle()
        #expect(board.textWakeDate == at(80.0 / 144 * 1.5))
        #expect(clock.pendingCount == 1, "one timer: the text wake-up (the stopwatch's timeline is .never)")
        // Zoom the note: the stopwatch is not on screen, nothing of it wakes the host.
        board.press(.tab)
        board.press(.enter)
        #expect(board.isZoomed)
        #expect(board.textWakeDate == at(60), "the status bar's next minute")
        board.press(.escape)
        #expect(board.textWakeDate == at(80.0 / 144 * 1.5))
    }

    @Test("a seconds clock: one provider call for the day's timeline, a wake-up and a new second each second")
    func secondsClock() async {
        let clock = ManualClock(now: at(0))
        let board = DashboardUnderTest(size: TerminalSize(columns: 40, rows: 8), clock: clock)
        let widget = ClockWidget.configuration(context: WidgetContext(now: { clock.now }))
        board.install([PreparedPanel.of([("Clock", widget)], family: .small,
                                        options: WidgetOptions(["timeZone": .string("UTC"), "seconds": .bool(true)]))])
        await board.settle()
        let id = board.panels[0].members[0].id
        let firstEntry = board.status(of: id)?.entry?.date
        var seconds: [String] = []
        for _ in 0..<120 {
            #expect(clock.nextScheduledDate == clock.now + 1)
            clock.advance(by: 1)
            await board.settle()
            let frame = TextBackend.lines(board.render()).joined(separator: "\n")
            seconds.append(frame.contains(":\(two(Int(clock.now.timeIntervalSince(at(0))) % 60))") ? "ok" : frame)
        }
        #expect(seconds.allSatisfy { $0 == "ok" })
        #expect(board.status(of: id)?.entry?.date == firstEntry, "the same entry all along: no entry per second")
        #expect(showsTime(TextBackend.lines(board.render()).joined(separator: "\n"), "08:02:00"))
    }
}

private func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
