import Glibc

/// The clocks a transport reads, passed in so tests can fix them.
///
/// `wallNow` turns a `Retry-After` HTTP date into a wait; `now` (monotonic) times the retry
/// waits, deadlines and `retryNow`'s "retry in Ns". Called on the network thread and, for
/// `retryNow`, on the caller's.
public protocol TransportClock: Sendable {
    /// Seconds since 1970 on the wall clock.
    var wallNow: Double { get }
    /// A monotonic instant: never set back, counts on while the machine runs.
    var now: ContinuousClock.Instant { get }
}

/// The system's clocks: `CLOCK_REALTIME` and `ContinuousClock`.
public struct SystemTransportClock: TransportClock {
    public init() {}

    public var wallNow: Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    public var now: ContinuousClock.Instant { .now }
}
