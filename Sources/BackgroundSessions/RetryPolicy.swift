import DateTime
/// When to try again after a connection error, a timeout, a 5xx or a 429.
///
/// Waits grow exponentially from `baseDelay` (×2 per attempt, capped at `maxDelay`) and are
/// scaled by `0.5 + 0.5 × jitter` so that clients do not retry in lockstep (the jitter is the
/// transport's seeded generator's, or `jitter()` when set). A server's
/// `Retry-After` replaces the computed wait (capped at `maxRetryAfter`).
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (1: never retry).
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// A longer `Retry-After` than this ends the transfer instead of waiting.
    public var maxRetryAfter: Duration
    /// A source of numbers in 0..<1 that replaces the transport's seeded generator (a constant
    /// in tests); nil: the generator `CurlTransport(randomSeed:)` seeds.
    public var jitter: (@Sendable () -> Double)?

    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(60),
                maxRetryAfter: Duration = .seconds(300),
                jitter: (@Sendable () -> Double)? = nil) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.jitter = jitter
    }

    /// The wait after failed attempt number `attempt` (1-based), without a `Retry-After`, with
    /// `jitter()` (nil: the middle of the range, 0.5).
    public func delay(afterAttempt attempt: Int) -> Duration {
        delay(afterAttempt: attempt, jitter: jitter?() ?? 0.5)
    }

    /// The wait after failed attempt number `attempt` (1-based) for a drawn jitter in 0...1.
    public func delay(afterAttempt attempt: Int, jitter drawn: Double) -> Duration {
        var wait = baseDelay
        for _ in 1..<max(attempt, 1) where wait < maxDelay { wait *= 2 }
        wait = min(wait, maxDelay)
        // A jitter source outside 0...1 (or NaN) must not scale the wait beyond its bounds.
        let j = drawn.isFinite ? min(max(drawn, 0), 1) : 0.5
        return wait * (0.5 + 0.5 * j)
    }
}

/// Parses `Retry-After` values.
///
/// The value comes from a server: anything it sends gives nil or a wait in
/// `0...RetryAfter.longest`, never a trap.
public enum RetryAfter {
    /// The longest wait a `Retry-After` can stand for (100 years); longer asks are read as this.
    /// Far beyond any `RetryPolicy.maxRetryAfter`, so such an answer still ends the transfer.
    public static let longest: Duration = .seconds(longestSeconds)
    static let longestSeconds: Int64 = 100 * 365 * 86_400

    /// The wait a `Retry-After` value asks for: delta seconds, or an HTTP-date (IMF-fixdate,
    /// `Sun, 06 Nov 1994 08:49:37 GMT`) relative to `now` (seconds since 1970, wall clock).
    ///
    /// A date in the past gives zero; an unreadable value gives nil; a wait longer than
    /// `longest` (a huge number, a date in year 9999) gives `longest`.
    public static func parse(_ value: String, now: Double) -> Duration? {
        let text = value.trimmingCharacters(in: " \t")
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            // Any number of digits: one too large for Int64 is just "very long".
            guard let seconds = Int64(text), seconds <= longestSeconds else { return longest }
            return .seconds(seconds)
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        guard now.isFinite else { return nil }
        let wait = Double(date) - now
        guard wait > 0 else { return .zero }
        guard wait < Double(longestSeconds) else { return longest }
        // wait is in (0, 100 years): its milliseconds fit an Int64 with room to spare.
        return .milliseconds(Int64((wait * 1000).rounded(.up)))
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}
