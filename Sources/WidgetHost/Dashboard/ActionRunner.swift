import FoundationEssentials
import WidgetCore

/// Runs an action's perform (`DashboardEffect.runAction`) for the program.
@MainActor
enum ActionRunner {
    /// Where action performs run: threads of their own, parked while no action runs.
    static let executor = ThreadTaskExecutor(maximumThreads: 2, name: "wh-action")

    /// Runs the perform on the actions' threads (never Swift's cooperative pool: its worker
    /// threads and timers would start Dispatch's pool, which wakes the process every second)
    /// racing a timer of the dashboard's clock (the loop's timerfd); the first to finish
    /// answers on the loop with `.actionFinished`. A timeout cancels the perform (one that
    /// ignores cancellation finishes unobserved).
    static func run(_ run: ActionRun, clock: any WidgetClock, answer: @escaping @Sendable @MainActor (DashboardMessage) -> Void) {
        let race = ActionRace()
        let (id, action, context, body) = (run.member, run.action, run.context, run.body)
        let work = Task(executorPreference: executor) {
            var failure: String?
            do { try await body(context) } catch { failure = "\(error)" }
            Task { @MainActor in
                guard race.answer() else { return }
                race.timer?.cancel()
                answer(.actionFinished(id, action: action, failure: failure))
            }
        }
        let deadline = clock.now.addingTimeInterval(action.timeoutSeconds)
        race.timer = clock.schedule(at: deadline) {
            Task { @MainActor in
                guard race.answer() else { return }
                work.cancel()
                answer(.actionFinished(id, action: action, failure: "timed out after \(Dashboard.timeoutText(action.timeoutSeconds))"))
            }
        }
    }
}

/// A perform racing its timeout, on the loop: whichever ends first answers, once.
@MainActor
private final class ActionRace {
    private var answered = false
    var timer: ClockTimer?

    /// True for the first caller only.
    func answer() -> Bool {
        defer { answered = true }
        return !answered
    }
}
