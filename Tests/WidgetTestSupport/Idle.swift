import BackgroundSessions
import Dispatch
import Synchronization

/// Waits until `manager` is idle — no download runs, no result is on its way to the journal,
/// no event waits for its widget — at most `seconds` of wall time (stretched by
/// `TestTimeScale`); returns whether it became idle. Woken by the manager itself
/// (`whenIdle`), never polled.
public func idle(_ manager: BackgroundSessionManager, within seconds: Double = 30) async -> Bool {
    let outcome = Mutex<CheckedContinuation<Bool, Never>?>(nil)
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        outcome.withLock { $0 = continuation }
        @Sendable func finish(_ value: Bool) {
            outcome.withLock { waiting -> CheckedContinuation<Bool, Never>? in
                defer { waiting = nil }
                return waiting
            }?.resume(returning: value)
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + seconds * TestTimeScale.factor) { finish(manager.isIdle) }
        manager.whenIdle { finish(true) }
    }
}
