@testable import Extensions
import FoundationEssentials
import Synchronization
import WidgetCore
import WidgetTestSupport

/// Simulated time for extension hosts: a `ManualClock` behind `ScheduledExtensionClock`, and
/// the event a test waits for before it moves time: a thread of the host waiting on the clock
/// for a given moment (the reader for a request's deadline or the idle exit, the delivery
/// thread for a backoff). Time moves only in `advance`.
final class TestExtensionClock: ExtensionClock {
    let manual = ManualClock()
    private let scheduled: ScheduledExtensionClock

    private struct Waiter {
        var at: Double
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        /// Every moment a wake-up was asked for, in seconds from `start`.
        var asked: [Double] = []
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())
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
        let moment = deadline - start
        let ready = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.asked.append(moment)
            let met = state.waiters.filter { abs($0.value.at - moment) < 1e-6 }
            for key in met.keys { state.waiters.removeValue(forKey: key) }
            return met.values.map(\.continuation)
        }
        for continuation in ready { continuation.resume(returning: true) }
        return scheduled.wake(at: deadline, wake)
    }

    /// Moves time forward by `seconds`, running the wake-ups that fall due.
    func advance(by seconds: Double) { manual.advance(by: seconds) }

    /// Waits until a thread has asked to be woken at `moment` (seconds from `start`), at most
    /// `seconds` of real time; true when one has (or had already).
    func waiter(at moment: Double, within seconds: Double = 10) async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timeout = Task {
            try? await Task.sleep(for: TestTimeScale.scaled(.milliseconds(Int64(seconds * 1000))))
            let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
            waiter?.continuation.resume(returning: false)
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { continuation in
            let already = state.withLock { state -> Bool in
                if state.asked.contains(where: { abs($0 - moment) < 1e-6 }) { return true }
                state.waiters[id] = Waiter(at: moment, continuation: continuation)
                return false
            }
            if already { continuation.resume(returning: true) }
        }
    }

    /// The moments asked for so far (seconds from `start`), for a failure's message.
    var asked: [Double] { state.withLock { $0.asked } }
}
