#if canImport(Glibc)
import Glibc
#endif

/// A one-shot result that a thread waits for with a deadline on the host's `ExtensionClock`: a
/// connection's end (for its SIGKILL), or the answer to a session delivery's request on the
/// extension's delivery thread (it blocks on a request's `AnswerSlot` through one).
final class Latch<Value: Sendable>: @unchecked Sendable {
    // The pthread objects live at fixed addresses (they must not move once initialised).
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var value: Value?

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        condition.deallocate()
    }

    /// Sets the value unless one is set already; returns whether this call set it.
    @discardableResult
    func fulfil(_ newValue: Value) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard value == nil else { return false }
        value = newValue
        pthread_cond_broadcast(condition)
        return true
    }

    /// The value, waiting until `deadline` on `clock` at most; nil when it passed.
    func wait(until deadline: Double, clock: any ExtensionClock) -> Value? {
        let timer = clock.wake(at: deadline) { [self] in
            pthread_mutex_lock(mutex)
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
        }
        defer { timer?.cancel() }
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var when = timespec()
        when.tv_sec = Int(deadline.rounded(.down))
        when.tv_nsec = Int((deadline - deadline.rounded(.down)) * 1e9)
        while value == nil {
            if timer == nil {
                if pthread_cond_timedwait(condition, mutex, &when) == ETIMEDOUT { break }
            } else {
                // A simulated clock: its wake-up (taking the mutex) ends the wait.
                if clock.now >= deadline { break }
                pthread_cond_wait(condition, mutex)
            }
        }
        return value
    }
}

/// Seconds on the monotonic clock (never jumps with the wall clock).
func monotonicNow() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}
