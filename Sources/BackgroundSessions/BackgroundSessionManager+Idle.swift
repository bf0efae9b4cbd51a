import Synchronization
import WidgetCore

extension BackgroundSessionManager {
    /// The manager's state behind its lock, telling those who wait for it to go idle.
    ///
    /// Every change of the state goes through `withLock`; after one that leaves the manager
    /// idle (`State.isIdle`), the waiters registered with `whenIdle` are called, outside the
    /// lock. So a headless command waits for its downloads and their events without polling.
    final class LockedState: Sendable {
        private let mutex: Mutex<State>

        init(_ state: sending State) { mutex = Mutex(state) }

        func withLock<Result: ~Copyable>(_ body: (inout sending State) -> sending Result) -> sending Result {
            var waiters: [SendableAction] = []
            let result = mutex.withLock { s -> sending Result in
                let result = body(&s)
                if !s.idleWaiters.isEmpty, s.isIdle || s.closed {
                    waiters = s.idleWaiters
                    s.idleWaiters = []
                }
                return result
            }
            for waiter in waiters { waiter.run() }
            return result
        }
    }

    /// Calls `action` once the manager is idle (no download runs, no result is on its way to
    /// the journal, no event waits for its widget) or closed: at once when it is now,
    /// otherwise on the thread whose change made it so.
    public func whenIdle(_ action: @escaping @Sendable () -> Void) {
        let now = state.withLock { s -> Bool in
            if s.isIdle || s.closed { return true }
            s.idleWaiters.append(SendableAction(action))
            return false
        }
        if now { action() }
    }
}

extension BackgroundSessionManager.State {
    /// Nothing runs and no event waits (nor a result on its way to the journal).
    var isIdle: Bool { running.isEmpty && resultsInFlight == 0 && !delivery.hasPending }
}
