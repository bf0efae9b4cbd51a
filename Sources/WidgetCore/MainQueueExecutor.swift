import Dispatch

/// A task executor that runs jobs on the main dispatch queue — the host's loop thread, which
/// drains that queue.
///
/// A nonisolated async function called from a task on the main actor still runs on Swift's
/// global executor (a thread of the cooperative pool is woken, and then the main thread again
/// for the answer). With this executor as the task's preference, the whole call stays on the
/// main thread: for providers that are cheap and never block (`WidgetManifest.runsOnLoop`).
public final class MainQueueExecutor: TaskExecutor, Sendable {
    public static let shared = MainQueueExecutor()

    private init() {}

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue.main.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
