import Synchronization

/// Lets at most `linesPerSecond` access-log lines through per second; the rest are counted
/// and reported in one summary line (`… 1234 more requests not logged`) once their second is
/// over.
///
/// A value with no clock: the caller passes the time, so tests drive it without sleeping.
/// Windows are fixed: one starts at the first line after the previous one ended.
///
/// ```swift
/// var limiter = AccessLogLimiter(linesPerSecond: 20)
/// let decision = limiter.admit(at: .now)
/// if let summary = decision.summary { write(summary) }
/// if decision.write { write(entry.line) }
/// ```
struct AccessLogLimiter: Sendable {
    /// What to write for one request.
    struct Decision: Equatable {
        /// A summary of the requests dropped in the window that just ended, to write first.
        var summary: String?
        /// Whether to write the request's own line.
        var write: Bool
    }

    let linesPerSecond: Int
    private var windowStart: ContinuousClock.Instant?
    private var written = 0
    private var dropped = 0

    init(linesPerSecond: Int) { self.linesPerSecond = max(1, linesPerSecond) }

    /// Counts one request at `now`.
    mutating func admit(at now: ContinuousClock.Instant) -> Decision {
        let summary = flush(at: now)
        if windowStart == nil { windowStart = now }
        if written < linesPerSecond {
            written += 1
            return Decision(summary: summary, write: true)
        }
        dropped += 1
        return Decision(summary: summary, write: false)
    }

    /// Ends the current window if its second is over: the summary of its dropped requests, if
    /// any. Call it now and then (the service does on each game tick) so a burst's summary is
    /// written even when no request follows.
    mutating func flush(at now: ContinuousClock.Instant) -> String? {
        guard let start = windowStart, start.duration(to: now) >= .seconds(1) else { return nil }
        return finish()
    }

    /// Ends the current window now, second over or not (when the log is closing).
    mutating func finish() -> String? {
        defer { windowStart = nil; written = 0; dropped = 0 }
        return dropped > 0 ? "… \(dropped) more requests not logged" : nil
    }
}

/// An access log behind an `AccessLogLimiter`, shared by connection threads.
final class LimitedAccessLog: Sendable {
    private let limiter: Mutex<AccessLogLimiter>
    private let write: @Sendable (String) -> Void

    init(linesPerSecond: Int, write: @escaping @Sendable (String) -> Void) {
        limiter = Mutex(AccessLogLimiter(linesPerSecond: linesPerSecond))
        self.write = write
    }

    /// Writes the entry's line unless this second's lines are used up.
    func log(_ entry: AccessLogEntry, at now: ContinuousClock.Instant = .now) {
        let decision = limiter.withLock { $0.admit(at: now) }
        if let summary = decision.summary { write(summary) }
        if decision.write { write(entry.line) }
    }

    /// Writes the pending summary if its second is over.
    func flush(at now: ContinuousClock.Instant = .now) {
        if let summary = limiter.withLock({ $0.flush(at: now) }) { write(summary) }
    }

    /// Writes the pending summary, if any, whether or not its second is over.
    func finish() {
        if let summary = limiter.withLock({ $0.finish() }) { write(summary) }
    }
}
