#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The thread the SDK runs requests on: a task executor of one thread of its own, asleep on a
/// condition variable while there is nothing to do.
///
/// Not Swift's global executor: on Linux its first Dispatch worker starts a pool monitor that
/// wakes the process every second for good, and an idle extension should wake for nothing
/// (the host does the same for its providers). Jobs run one at a time, in order; a provider
/// that blocks the thread delays the other requests (await instead: awaiting frees it).
final class JobThread: TaskExecutor, @unchecked Sendable {
    // @unchecked: `jobs`, `head` and `started` are only touched with `mutex` held.
    static let shared = JobThread()

    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var jobs: [UnownedJob] = []
    private var head = 0
    private var started = false

    private init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        pthread_mutex_lock(&mutex)
        jobs.append(job)
        let start = !started
        started = true
        pthread_mutex_unlock(&mutex)
        pthread_cond_signal(&condition)
        if start { startThread() }
    }

    private func startThread() {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        // The host's stack for the same recursive view and JSON work (`ThreadTaskExecutor`):
        // a platform's default can be 512 KiB.
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, 8 << 20)
        let result = pthread_create(&thread, &attributes, { context in
            let executor = Unmanaged<JobThread>.fromOpaque(context!).takeRetainedValue()
            executor.loop()
        }, context)
        if result != 0 {
            Unmanaged<JobThread>.fromOpaque(context).release()
            fatalError("WidgetHostSDK: cannot start its thread (error \(result))")
        }
        pthread_detach(thread)
    }

    private func loop() -> Never {
        while true {
            pthread_mutex_lock(&mutex)
            while head == jobs.count { pthread_cond_wait(&condition, &mutex) }
            let job = jobs[head]
            head += 1
            if head == jobs.count {
                jobs.removeAll(keepingCapacity: true)
                head = 0
            } else if head >= 1024 {
                // Jobs that keep coming never let it drain: drop the run ones now and then, as
                // the host's ThreadTaskExecutor does (the SDK is its own package: no shared copy).
                jobs.removeFirst(head)
                head = 0
            }
            pthread_mutex_unlock(&mutex)
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
