import FoundationEssentials
import WidgetCore

/// The clock an extension host times its extensions with: request deadlines, the idle exit,
/// the crash backoff, the shutdown steps. Passed in (`ExtensionRuntime`) so that tests of
/// those run in simulated time, with no real waiting.
///
/// Each thread that waits (the reader's `poll`, a `Latch`, the delivery thread's backoff) asks
/// `wake(at:)` first: the system clock answers nil, and the thread times its own blocking call
/// (as before: no extra timer, no extra wake-up); a simulated clock schedules `wake`, and the
/// thread blocks without a timeout until then (`waitTimeout`).
public protocol ExtensionClock: Sendable {
    /// Seconds on a monotonic clock (never set back with the wall clock).
    var now: Double { get }

    /// Runs `wake` once the clock reaches `deadline`, for a thread that waits without a
    /// timeout of its own; nil when the waiter is to time its wait itself (the system clock).
    func wake(at deadline: Double, _ wake: @escaping @Sendable () -> Void) -> ClockTimer?
}

extension ExtensionClock {
    /// Prepares a wait until `deadline`: the timeout for the blocking call (seconds, 0 when
    /// due; nil: none, `wake` ends it) and the timer to cancel once the call returns.
    func waitTimeout(until deadline: Double, _ wake: @escaping @Sendable () -> Void) -> (seconds: Double?, timer: ClockTimer?) {
        guard deadline.isFinite, let timer = self.wake(at: deadline, wake) else {
            return (max(0, deadline - now), nil)
        }
        // Scheduled first, read second: a clock advanced in between is seen here.
        return (now >= deadline ? 0 : nil, timer)
    }
}

/// `CLOCK_MONOTONIC`; waiters time their own blocking calls.
public struct SystemExtensionClock: ExtensionClock {
    public init() {}
    public var now: Double { monotonicNow() }
    public func wake(at deadline: Double, _ wake: @escaping @Sendable () -> Void) -> ClockTimer? { nil }
}

/// A `WidgetClock` (a `ManualClock` in tests) as an extension clock: its seconds since 1970
/// stand for monotonic seconds, and every wait is a wake-up scheduled on it, so time moves
/// only when the clock is advanced.
public struct ScheduledExtensionClock: ExtensionClock {
    public let clock: any WidgetClock

    public init(_ clock: any WidgetClock) { self.clock = clock }

    public var now: Double { clock.now.timeIntervalSince1970 }

    public func wake(at deadline: Double, _ wake: @escaping @Sendable () -> Void) -> ClockTimer? {
        clock.schedule(at: Date(timeIntervalSince1970: deadline), wake)
    }
}
