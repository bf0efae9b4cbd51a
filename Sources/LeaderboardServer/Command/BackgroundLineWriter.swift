import Dispatch
import Synchronization

/// Writes text on a queue of its own, so that the threads producing it never wait for the
/// destination; at most `capacity` pieces wait, further ones are dropped and counted.
///
/// For `leaderboard-server`'s request log on stderr: when stderr is a pipe nobody reads, a
/// blocking write would hold each connection thread after its answer until every connection
/// slot was stuck. Here only the writer's queue waits; the server keeps serving. 1,024 lines
/// of at most ~8 KiB (a request line) bound what waits to a few MB.
final class BackgroundLineWriter: Sendable {
    private let queue = DispatchQueue(label: "leaderboard-server.log")
    private let pending = Atomic<Int>(0)
    private let dropped = Atomic<Int>(0)
    private let capacity: Int
    private let destination: @Sendable (String) -> Void

    init(capacity: Int = 1024, destination: @escaping @Sendable (String) -> Void) {
        self.capacity = max(1, capacity)
        self.destination = destination
    }

    /// Queues `text`, or drops it when `capacity` pieces are already waiting.
    func write(_ text: String) {
        guard pending.add(1, ordering: .relaxed).newValue <= capacity else {
            pending.subtract(1, ordering: .relaxed)
            dropped.add(1, ordering: .relaxed)
            return
        }
        queue.async { [self] in
            let lost = dropped.exchange(0, ordering: .relaxed)
            if lost > 0 { destination("… \(lost) log lines dropped (the log was not being read)\n") }
            destination(text)
            pending.subtract(1, ordering: .relaxed)
        }
    }

    /// Waits until everything queued is written, or `timeout` has passed; true if written.
    @discardableResult
    func finish(within timeout: Duration) -> Bool {
        let done = DispatchSemaphore(value: 0)
        queue.async { done.signal() }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(clamping: seconds).multipliedReportingOverflow(by: 1_000_000_000)
        let wait = nanoseconds.overflow ? Int.max : nanoseconds.partialValue + Int(attoseconds / 1_000_000_000)
        return done.wait(timeout: .now() + .nanoseconds(wait)) == .success
    }
}
