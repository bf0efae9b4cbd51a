import FoundationEssentials
import Synchronization
import WidgetCore

/// Runs an action's perform (`DashboardEffect.runAction`) for the program.
@MainActor
enum ActionRunner {
    /// Where action performs run: threads of their own, parked while no action runs.
    static let executor = ThreadTaskExecutor(maximumThreads: 2, name: "wh-action")

    /// Runs the perform on the actions' threads (never Swift's cooperative pool: its worker
    /// threads and timers would start Dispatch's pool, which wakes the process every second)
    /// racing a timer of the dashboard's clock (the loop's timerfd); the first to finish
    /// answers with `.actionFinished`, posted to the loop's mailbox. A timeout cancels the
    /// perform (one that ignores cancellation finishes unobserved).
    static func run(_ run: ActionRun, clock: any WidgetClock, answer: @escaping @Sendable (DashboardMessage) -> Void) {
        let race = ActionRace()
        let (id, action, context, body) = (run.member, run.action, run.context, run.body)
        let work = Task(executorPreference: executor) {
            var failure: String?
            do { try await body(context) } catch { failure = "\(error)" }
            guard race.answer() else { return }
            answer(.actionFinished(id, action: action, failure: failure))
        }
        let deadline = clock.now.addingTimeInterval(action.timeoutSeconds)
        race.setTimer(clock.schedule(at: deadline) {
            guard race.answer() else { return }
            work.cancel()
            answer(.actionFinished(id, action: action, failure: "timed out after \(Dashboard.timeoutText(action.timeoutSeconds))"))
        })
    }
}

/// A perform racing its timeout: whichever ends first answers, once, and the timer goes.
private final class ActionRace: Sendable {
    private let state = Mutex<(answered: Bool, timer: ClockTimer?)>((false, nil))

    /// True for the first caller only; the timer is cancelled then.
    func answer() -> Bool {
        let (first, timer) = state.withLock { s -> (Bool, ClockTimer?) in
            defer { s.answered = true; s.timer = nil }
            return (!s.answered, s.timer)
        }
        timer?.cancel()
        return first
    }

    /// The timeout's timer; cancelled at once when the perform has already answered.
    func setTimer(_ timer: ClockTimer) {
        let answered = state.withLock { s -> Bool in
            if !s.answered { s.timer = timer }
            return s.answered
        }
        if answered { timer.cancel() }
    }
}
