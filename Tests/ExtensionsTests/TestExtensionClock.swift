@testable import Extensions
import FoundationEssentials
import WidgetCore
import WidgetTestSupport

/// Simulated time for extension hosts: a `ManualClock` behind `ScheduledExtensionClock`, and
/// the event a test waits for before it moves time: a thread of the host waiting on the clock
/// for a given moment (the reader for a request's deadline or the idle exit, the delivery
/// thread for a backoff). Time moves only in `advance`.
final class TestExtensionClock: ExtensionClock {
    let manual = ManualClock()
    private let scheduled: ScheduledExtensionClock

    /// Every moment a wake-up was asked for, in seconds from `start`.
    private let moments = RecordedEvents<Double>()
    /// `now` when the test began.
    let start: Double

    init() {
        scheduled = ScheduledExtensionClock(manual)
        start = manual.now.timeIntervalSince1970
    }

    var now: Double { scheduled.now }

    /// Seconds since `start`.
    var elapsed: Double { now - start }

    func wake(at deadline: Double, _ wake: @escaping @Sendable () -> Void) -> ClockTimer? {
        moments.append(deadline - start)
        return scheduled.wake(at: deadline, wake)
    }

    /// Moves time forward by `seconds`, running the wake-ups that fall due.
    func advance(by seconds: Double) { manual.advance(by: seconds) }

    /// Waits until a thread has asked to be woken at `moment` (seconds from `start`), at most
    /// `seconds` of real time; true when one has (or had already).
    func waiter(at moment: Double, within seconds: Double = 30) async -> Bool {
        await moments.wait(within: seconds) { $0.contains { abs($0 - moment) < 1e-6 } }
    }

    /// The moments asked for so far (seconds from `start`), for a failure's message.
    var asked: [Double] { moments.values }
}
