import BackgroundSessions
import Synchronization

/// An `HTTPTransport` that does no I/O: tests see what was started and decide how it ends.
///
/// Thread-safe. Events are delivered synchronously on the thread that calls `emit`/`finish`
/// (or `cancel`), like the real transport delivers them on its network thread.
///
/// Retry waits: a `.retrying` event puts a transfer in a backoff that `retryNow` cuts short (and
/// records in `expeditedIDs`); `emitRetryAfter` puts it in a server's wait that `retryNow`
/// honours. The fake has no clock: the wait never ends by itself, and the remaining wait it
/// reports is the one given.
public final class FakeTransport: HTTPTransport {
    /// A transfer the code under test started.
    public struct Started: Sendable {
        public let id: TransferID
        public let request: TransferRequest
        fileprivate let events: @Sendable (TransferEvent) -> Void
    }

    private struct State {
        var nextID: UInt64 = 1
        var running: [TransferID: Started] = [:]
        var history: [Started] = []
        var cancelled: [TransferID] = []
        /// Transfers waiting to retry: nil for a backoff, else the server's Retry-After.
        var waits: [TransferID: Duration?] = [:]
        var expedited: [TransferID] = []
    }

    private let state = Mutex(State())
    /// One value per start, cancel and finish: what `wait` re-checks its condition on.
    private let changes = RecordedEvents<Bool>()

    public init() {}

    /// Waits (bounded) until `condition` holds of the transport; each start, cancel and finish
    /// checks it again: the change itself ends the wait, no polling.
    public func wait(within seconds: Double = 30, until condition: @escaping @Sendable (FakeTransport) -> Bool) async -> Bool {
        await changes.wait(within: seconds) { [unowned self] _ in condition(self) }
    }

    @discardableResult
    public func start(_ request: TransferRequest, events: @escaping @Sendable (TransferEvent) -> Void) -> TransferID {
        defer { changes.append(true) }
        return state.withLock { s in
            let id = TransferID(rawValue: s.nextID)
            s.nextID += 1
            let started = Started(id: id, request: request, events: events)
            s.running[id] = started
            s.history.append(started)
            return id
        }
    }

    public func cancel(_ id: TransferID) {
        let started = state.withLock { s -> Started? in
            guard let started = s.running.removeValue(forKey: id) else { return nil }
            s.waits[id] = nil
            s.cancelled.append(id)
            return started
        }
        changes.append(true)
        started?.events(.finished(.cancelled))
    }

    @discardableResult
    public func retryNow(_ id: TransferID) -> RetryNowResult {
        state.withLock { s in
            guard s.running[id] != nil, let wait = s.waits[id] else { return .notWaiting }
            if let retryAfter = wait { return .honouringRetryAfter(remaining: retryAfter) }
            s.waits[id] = nil
            s.expedited.append(id)
            return .retrying
        }
    }

    /// Every request started so far, in order.
    public var startedRequests: [TransferRequest] { state.withLock { $0.history.map(\.request) } }

    /// Ids of transfers still running (not finished, not cancelled), in start order.
    public var runningIDs: [TransferID] {
        state.withLock { s in s.history.map(\.id).filter { s.running[$0] != nil } }
    }

    /// Ids cancelled while running, in order.
    public var cancelledIDs: [TransferID] { state.withLock { $0.cancelled } }

    /// Ids whose backoff `retryNow` cut short, in order.
    public var expeditedIDs: [TransferID] { state.withLock { $0.expedited } }

    /// Reports a non-final event for a running transfer; false if not running. `.retrying`
    /// puts the transfer in a backoff wait (see the type's documentation).
    @discardableResult
    public func emit(_ id: TransferID, _ event: TransferEvent) -> Bool {
        guard let started = state.withLock({ s -> Started? in
            guard let started = s.running[id] else { return nil }
            if case .retrying = event { s.waits[id] = .some(nil) }
            return started
        }) else { return false }
        started.events(event)
        return true
    }

    /// Reports `.retrying` after a server's `Retry-After: wait`, which `retryNow` honours
    /// (answering `.honouringRetryAfter(remaining: wait)`); false if not running.
    @discardableResult
    public func emitRetryAfter(_ id: TransferID, attempt: Int, wait: Duration, reason: String) -> Bool {
        guard let started = state.withLock({ s -> Started? in
            guard let started = s.running[id] else { return nil }
            s.waits[id] = .some(wait)
            return started
        }) else { return false }
        started.events(.retrying(attempt: attempt, delay: wait, reason: reason))
        return true
    }

    /// Ends a running transfer with `result`; false if it is not running.
    @discardableResult
    public func finish(_ id: TransferID, with result: TransferResult) -> Bool {
        guard let started = state.withLock({ s -> Started? in
            s.waits[id] = nil
            return s.running.removeValue(forKey: id)
        }) else { return false }
        changes.append(true)
        started.events(.finished(result))
        return true
    }
}
