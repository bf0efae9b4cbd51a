import FoundationEssentials
import Synchronization

/// The source of "now" and of one-shot wake-ups for the host's loop.
///
/// Times are wall-clock dates: a machine that slept must show the right entry when it wakes,
/// so implementations schedule against the wall clock, not a monotonic one. There is no
/// periodic timer: the loop asks for one wake-up at the next moment anything changes.
/// `ManualClock` is the clock for tests and headless rendering; the dashboard's wall clock is
/// `LoopClock` in WidgetHost, a timerfd on its event loop.
public protocol WidgetClock: AnyObject, Sendable {
    /// The current time.
    var now: Date { get }

    /// Runs `action` once, at `date` or as soon after it as possible.
    ///
    /// - Returns: a handle; cancelling it before it fires means the action never runs.
    func schedule(at date: Date, _ action: @escaping @Sendable () -> Void) -> ClockTimer
}

/// A scheduled one-shot wake-up that can be cancelled.
public final class ClockTimer: Sendable {
    private let cancelAction: Mutex<SendableAction?>

    public init(cancel: @escaping @Sendable () -> Void) {
        cancelAction = Mutex(SendableAction(cancel))
    }

    /// Stops the timer; safe to call more than once and after it fired.
    public func cancel() {
        let action = cancelAction.withLock { a -> SendableAction? in
            defer { a = nil }
            return a
        }
        action?.run()
    }
}
