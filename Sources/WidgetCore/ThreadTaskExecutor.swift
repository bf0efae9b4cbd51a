#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A task executor with a small pool of threads of its own, each asleep on a condition
/// variable while there is no work.
///
/// The host runs provider calls here (`Task(executorPreference:)`) so they stay off its main
/// loop without touching Dispatch's worker pool: on Linux, the first Dispatch worker thread
/// starts a pool monitor that wakes the process every second for good, which would break
/// "idle means zero wake-ups". A parked thread makes no wake-ups either.
///
/// Threads start on demand: when a job arrives and every thread is busy (a provider that
/// blocks keeps its thread), another one starts, up to `maximumThreads`; they are never
/// stopped. So one blocked provider delays no other while fewer than `maximumThreads` block
/// at once. Jobs are taken in order; with one thread they run one at a time, in order.
public final class ThreadTaskExecutor: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `threadCount` and `busyCount` are only touched with `mutex` held.
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var threadCount = 0
    private var busyCount = 0
    private let startFailures = Atomic<Int>(0)
    private let onStart: (@Sendable () -> Void)?
    /// The most threads this executor starts.
    public let maximumThreads: Int
    /// Its threads' name and stack size (`HostThread`).
    public let threadName: String
    public let stackSize: Int

    /// A provider's thread: room for decoding the deepest answer an extension may send (a
    /// 64-level view: 367 KiB in the debug build, `ThreadStackTests`) five times over.
    public static let defaultStackSize = 2 * 1024 * 1024

    /// Creates the executor; its threads start with the first jobs.
    ///
    /// - Parameters:
    ///   - maximumThreads: at least 1. The dashboard uses 4: enough that a blocked provider (or
    ///     three) leaves the others a thread, few enough to stay small.
    ///   - name: its threads' name (`wh-provider`, `wh-action`).
    ///   - stackSize: each thread's stack.
    ///   - onStart: runs first on each thread.
    public init(maximumThreads: Int = 1, name: String = "wh-task", stackSize: Int = ThreadTaskExecutor.defaultStackSize,
                onStart: (@Sendable () -> Void)? = nil) {
        self.maximumThreads = max(1, maximumThreads)
        self.threadName = name
        self.stackSize = stackSize
        self.onStart = onStart
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    /// Threads started so far (for tests and the benchmark).
    public var startedThreads: Int {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return threadCount
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        pthread_mutex_lock(&mutex)
        jobs.append(unowned)
        // Every waiting or waking thread takes one job; start another when jobs outnumber them.
        let needsThread = jobs.count - head > threadCount - busyCount && threadCount < maximumThreads
        if needsThread { threadCount += 1 }
        pthread_mutex_unlock(&mutex)
        // After unlocking: signalled under the lock, the thread woke only to sleep again on the
        // mutex and be woken a second time (two context switches per job instead of one).
        pthread_cond_signal(&condition)
        if needsThread { startThread() }
    }

    /// A thread that cannot start (the user's process limit reached — an extension that forks
    /// without end, say) is not a crash of the host: the job waits for a thread that runs, and
    /// the next job tries to start one again.
    private func startThread() {
        let started = HostThread.start(name: threadName, stackSize: stackSize) { [self] in runJobs() }
        guard case .failure = started else { return }
        pthread_mutex_lock(&mutex)
        threadCount -= 1
        pthread_mutex_unlock(&mutex)
        startFailures.add(1, ordering: .relaxed)
    }

    /// Threads that could not be started (for tests and the log).
    public var failedThreadStarts: Int { startFailures.load(ordering: .relaxed) }

    private func runJobs() -> Never {
        onStart?()
        while true {
            pthread_mutex_lock(&mutex)
            while head == jobs.count { pthread_cond_wait(&condition, &mutex) }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 {
                jobs.removeFirst(head)
                head = 0
            }
            busyCount += 1
            pthread_mutex_unlock(&mutex)
            job.runSynchronously(on: asUnownedTaskExecutor())
            pthread_mutex_lock(&mutex)
            busyCount -= 1
            pthread_mutex_unlock(&mutex)
        }
    }
}
