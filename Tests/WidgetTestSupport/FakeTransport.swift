import BackgroundSessions
import Synchronization

/// An `HTTPTransport` that does no I/O: tests see what was started and decide how it ends.
///
/// Thread-safe. Events are delivered synchronously on the thread that calls `emit`/`finish`
/// (or `cancel`), like the real transport delivers them on its network thread.
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
    }

    private let state = Mutex(State())

    public init() {}

    @discardableResult
    public func start(_ request: TransferRequest, events: @escaping @Sendable (TransferEvent) -> Void) -> TransferID {
        state.withLock { s in
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
            s.cancelled.append(id)
            return started
        }
        started?.events(.finished(.cancelled))
    }

    /// Every request started so far, in order.
    public var startedRequests: [TransferRequest] { state.withLock { $0.history.map(\.request) } }

    /// Ids of transfers still running (not finished, not cancelled), in start order.
    public var runningIDs: [TransferID] {
        state.withLock { s in s.history.map(\.id).filter { s.running[$0] != nil } }
    }

    /// Ids cancelled while running, in order.
    public var cancelledIDs: [TransferID] { state.withLock { $0.cancelled } }

    /// Reports a non-final event (e.g. `.retrying`) for a running transfer; false if not running.
    @discardableResult
    public func emit(_ id: TransferID, _ event: TransferEvent) -> Bool {
        guard let started = state.withLock({ $0.running[id] }) else { return false }
        started.events(event)
        return true
    }

    /// Ends a running transfer with `result`; false if it is not running.
    @discardableResult
    public func finish(_ id: TransferID, with result: TransferResult) -> Bool {
        guard let started = state.withLock({ $0.running.removeValue(forKey: id) }) else { return false }
        started.events(.finished(result))
        return true
    }
}
