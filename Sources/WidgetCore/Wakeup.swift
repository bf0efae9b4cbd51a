import Synchronization

/// A waiter's bell: `ring()` from any thread wakes whoever awaits `wait()`; a ring that
/// comes while nobody waits is kept, so the next `wait()` returns at once. For code that waits
/// for a condition to change without polling: check, then wait, then check again.
public final class Wakeup: Sendable {
    private struct State {
        var waiters: [CheckedContinuation<Void, Never>] = []
        var rung = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Wakes every waiter; with none, the next `wait()` returns at once.
    public func ring() {
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            defer { s.waiters.removeAll() }
            if s.waiters.isEmpty { s.rung = true }
            return s.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns after the next `ring()`, or at once when one came since the last `wait()`.
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { s -> Bool in
                if s.rung {
                    s.rung = false
                    return true
                }
                s.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
