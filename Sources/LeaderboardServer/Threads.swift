import Glibc

/// Starts a POSIX thread running `body`.
///
/// Detached threads clean up after themselves; joinable ones must be passed to
/// `pthread_join`. Throws `ServerError.system` when the thread cannot be created.
@discardableResult
func startThread(
    detached: Bool, stackSize: Int = 256 * 1024, _ body: @escaping @Sendable () -> Void
) throws(ServerError) -> pthread_t {
    final class Box { let body: @Sendable () -> Void; init(_ b: @escaping @Sendable () -> Void) { body = b } }
    var attr = pthread_attr_t()
    pthread_attr_init(&attr)
    defer { pthread_attr_destroy(&attr) }
    pthread_attr_setstacksize(&attr, stackSize)
    if detached { pthread_attr_setdetachstate(&attr, Int32(PTHREAD_CREATE_DETACHED)) }
    let context = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let rc = pthread_create(&thread, &attr, { raw in
        Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
        return nil
    }, context)
    if rc != 0 {
        Unmanaged<Box>.fromOpaque(context).release()
        throw .system("pthread_create", rc)
    }
    return thread
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
