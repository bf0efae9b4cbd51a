import FoundationEssentials
import Synchronization

/// A clock that only moves when told to, for tests and for rendering a chosen moment.
///
/// `advance(by:)` and `advance(to:)` run every scheduled action whose date has come, in order
/// of (date, order of scheduling), setting `now` to each action's date as it runs, then to the
/// target. Actions run on the caller's thread. `pendingCount` tells a test whether work was
/// left waiting (the test-support target turns that into a failure).
///
/// ```swift
/// let clock = ManualClock(now: .init(timeIntervalSince1970: 0))
/// _ = clock.schedule(at: clock.now + 60) { print("a minute later") }
/// clock.advance(by: 60)
/// ```
public final class ManualClock: WidgetClock {
    private struct Pending {
        var date: Date
        var sequence: UInt64
        var action: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        var pending: [Pending] = []
        var nextSequence: UInt64 = 0
    }

    private let state: Mutex<State>

    public init(now: Date = Date(timeIntervalSince1970: 1_800_000_000)) {
        state = Mutex(State(now: now))
    }

    public var now: Date { state.withLock { $0.now } }

    /// Scheduled actions that have not run and were not cancelled.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// The date of the earliest scheduled action, if any.
    public var nextScheduledDate: Date? {
        state.withLock { s in s.pending.min { ($0.date, $0.sequence) < ($1.date, $1.sequence) }?.date }
    }

    public func schedule(at date: Date, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let sequence = state.withLock { s -> UInt64 in
            s.nextSequence += 1
            s.pending.append(Pending(date: date, sequence: s.nextSequence, action: action))
            return s.nextSequence
        }
        return ClockTimer { [weak self] in
            self?.state.withLock { s in s.pending.removeAll { $0.sequence == sequence } }
        }
    }

    /// Moves time forward by `interval` seconds, running what falls due.
    public func advance(by interval: TimeInterval) {
        advance(to: now.addingTimeInterval(interval))
    }

    /// Sets the time to `date`, forwards or backwards, running nothing: the wall clock being
    /// set (an NTP step). What falls due runs on the next `advance`.
    public func set(to date: Date) {
        state.withLock { $0.now = date }
    }

    /// Moves time forward to `date` (never backwards), running what falls due in order.
    public func advance(to date: Date) {
        while true {
            let next = state.withLock { s -> Pending? in
                guard let index = s.pending.indices.min(by: {
                    (s.pending[$0].date, s.pending[$0].sequence) < (s.pending[$1].date, s.pending[$1].sequence)
                }), s.pending[index].date <= date else {
                    // Under the same lock as the search: an action scheduled once this ran
                    // sees the new time (`now`), never a clock stuck before its date.
                    s.now = max(s.now, date)
                    return nil
                }
                let item = s.pending.remove(at: index)
                s.now = max(s.now, item.date)
                return item
            }
            guard let next else { break }
            next.action()
        }
    }
}
