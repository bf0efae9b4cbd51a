/// When a lost broker connection is tried again: `base` after the first failure, doubling
/// per failure in a row up to `maximum`. A connection that stayed up `healthyAfter` clears
/// the count, so a broker that accepts and drops at once is not hammered at `base`. Pure:
/// times are passed in.
struct MQTTBackoff: Sendable, Equatable {
    var base: Duration = .seconds(1)
    var maximum: Duration = .seconds(60)
    var healthyAfter: Duration = .seconds(10)

    /// The wait after `failures` failed attempts in a row (at least 1).
    func delay(failures: Int) -> Duration {
        var delay = base
        for _ in 0..<min(max(0, failures - 1), 32) {
            delay = delay * 2
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }

    /// Failures in a row after a connection made at `connectedAt` (nil: never made) ended
    /// at `now`.
    func failures(after previous: Int, connectedAt: ContinuousClock.Instant?, now: ContinuousClock.Instant) -> Int {
        if let connectedAt, connectedAt.duration(to: now) >= healthyAfter { return 1 }
        return previous + 1
    }
}
