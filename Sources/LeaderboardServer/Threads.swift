import Glibc
import WidgetCore

/// Starts a POSIX thread running `body`, the host's way (`HostThread`: named, an alternate
/// signal stack), since this server also runs inside the dashboard.
///
/// Detached threads clean up after themselves; joinable ones must be passed to
/// `pthread_join`. Throws `ServerError.system` when the thread cannot be created.
@discardableResult
func startThread(
    name: String, detached: Bool, stackSize: Int = 256 * 1024, _ body: @escaping @Sendable () -> Void
) throws(ServerError) -> pthread_t {
    switch HostThread.start(name: name, stackSize: stackSize, detached: detached, body) {
    case .success(let thread): return thread
    case .failure(let error): throw .system("pthread_create", error.code)
    }
}

/// A counter that a thread can wait on until it drops to zero.
///
/// Used by `HTTPServer.stop()` to wait for connection threads to finish.
/// `@unchecked Sendable`: every access to `count` happens under `mutex`.
final class ZeroWaitCounter: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var count = 0

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    /// Adds one unless the count is at `limit`; returns whether it did.
    func increment(limit: Int) -> Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        guard count < limit else { return false }
        count += 1
        return true
    }

    func decrement() {
        pthread_mutex_lock(&mutex)
        count -= 1
        if count == 0 { pthread_cond_broadcast(&condition) }
        pthread_mutex_unlock(&mutex)
    }

    func waitForZero() {
        pthread_mutex_lock(&mutex)
        while count > 0 { pthread_cond_wait(&condition, &mutex) }
        pthread_mutex_unlock(&mutex)
    }
}
