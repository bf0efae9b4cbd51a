import Dispatch
import FoundationEssentials

/// The wall clock, with one-shot Dispatch timers on a given queue.
///
/// Timers use `DispatchWallTime`, so a deadline is kept across a machine's sleep. Nothing
/// repeats: each `schedule` arms one timer that fires once and is released.
public final class SystemClock: WidgetClock {
    private let queue: DispatchQueue

    /// - Parameter queue: where actions run; the host passes its main queue.
    public init(queue: DispatchQueue = .main) {
        self.queue = queue
    }

    public var now: Date { Date() }

    public func schedule(at date: Date, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let delay = max(0, date.timeIntervalSinceNow)
        let nanos = delay >= 1e9 ? UInt64(1e18) : UInt64(delay * 1e9)
        timer.schedule(wallDeadline: .now() + .nanoseconds(Int(min(nanos, UInt64(Int.max)))), leeway: .milliseconds(1))
        let box = TimerBox(timer)
        timer.setEventHandler {
            box.timer.cancel()
            action()
        }
        timer.activate()
        return ClockTimer { box.timer.cancel() }
    }
}

/// Dispatch sources are thread-safe to cancel, but the overlay does not mark them Sendable.
private final class TimerBox: @unchecked Sendable {
    let timer: any DispatchSourceTimer
    init(_ timer: any DispatchSourceTimer) { self.timer = timer }
}
