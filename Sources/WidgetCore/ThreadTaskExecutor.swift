#if canImport(Glibc)
import Glibc
#endif

/// A task executor with one thread of its own that sleeps on a condition variable while it
/// has no work.
///
/// The host runs provider calls here (`Task(executorPreference:)`) so they stay off its main
/// loop without touching Dispatch's worker pool: on Linux, the first Dispatch worker thread
/// starts a pool monitor that wakes the process every second for good, which would break
/// "idle means zero wake-ups". Jobs run one at a time, in order.
public final class ThreadTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs` is only touched with `mutex` held; the thread handle is set once.
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var jobs: [UnownedJob] = []
    private var thread = pthread_t()
    private let onStart: (@Sendable () -> Void)?

    /// Starts the executor's thread; `onStart` runs first on it (the host names the thread).
    public init(onStart: (@Sendable () -> Void)? = nil) {
        self.onStart = onStart
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
        let box = Unmanaged.passRetained(self)
        let created = pthread_create(&thread, nil, { raw in
            let executor = Unmanaged<ThreadTaskExecutor>.fromOpaque(raw!).takeRetainedValue()
            executor.runJobs()
        }, box.toOpaque())
        precondition(created == 0, "cannot start a provider thread")
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        pthread_mutex_lock(&mutex)
        jobs.append(unowned)
        pthread_mutex_unlock(&mutex)
        // After unlocking: signalled under the lock, the thread woke only to sleep again on the
        // mutex and be woken a second time (two context switches per job instead of one).
        pthread_cond_signal(&condition)
    }

    private func runJobs() -> Never {
        onStart?()
        while true {
            pthread_mutex_lock(&mutex)
            while jobs.isEmpty { pthread_cond_wait(&condition, &mutex) }
            let batch = jobs
            jobs.removeAll(keepingCapacity: true)
            pthread_mutex_unlock(&mutex)
            for job in batch { job.runSynchronously(on: asUnownedTaskExecutor()) }
        }
    }
}
