import Synchronization

/// Values a test records as they happen (a delegate's callbacks, log lines), and a wait for a
/// condition on them that the recording itself ends: no polling of the wall clock. The wait
/// is bounded (`TestTimeScale` applies) and answers at once when the condition already holds.
public final class RecordedEvents<Value: Sendable>: Sendable {
    private struct Waiter {
        var condition: @Sendable ([Value]) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
    }

    private struct State {
        var values: [Value] = []
        var waiters: [Int: Waiter] = [:]
        var nextWaiter = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Everything recorded so far, in order.
    public var values: [Value] { state.withLock { $0.values } }

    /// Records `value` and wakes the waits whose condition now holds.
    public func append(_ value: Value) {
        let met = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.values.append(value)
            guard !state.waiters.isEmpty else { return [] }
            let met = state.waiters.filter { $0.value.condition(state.values) }
            for key in met.keys { state.waiters.removeValue(forKey: key) }
            return met.values.map(\.continuation)
        }
        for continuation in met { continuation.resume(returning: true) }
    }

    /// Waits until `condition` holds for the values recorded, at most `seconds` of real time;
    /// false when it did not.
    public func wait(within seconds: Double = 30, until condition: @escaping @Sendable ([Value]) -> Bool) async -> Bool {
        let id = state.withLock { state -> Int in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timeout = Task { [self] in
            try? await Task.sleep(for: TestTimeScale.scaled(.milliseconds(Int64(seconds * 1000))))
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: false)
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { continuation in
            let holds = state.withLock { state -> Bool in
                if condition(state.values) { return true }
                state.waiters[id] = Waiter(condition: condition, continuation: continuation)
                return false
            }
            if holds { continuation.resume(returning: true) }
        }
    }
}
