import Glibc

/// When to try again after a connection error, a timeout, a 5xx or a 429.
///
/// Waits grow exponentially from `baseDelay` (×2 per attempt, capped at `maxDelay`) and are
/// scaled by `0.5 + 0.5 × jitter()` so that clients do not retry in lockstep. A server's
/// `Retry-After` replaces the computed wait (capped at `maxRetryAfter`).
public struct RetryPolicy: Sendable {
    /// Attempts in all, the first included (1: never retry).
    public var maxAttempts: Int
    public var baseDelay: Duration
    public var maxDelay: Duration
    /// A longer `Retry-After` than this ends the transfer instead of waiting.
    public var maxRetryAfter: Duration
    /// A source of numbers in 0..<1; inject a constant in tests.
    public var jitter: @Sendable () -> Double

    public init(maxAttempts: Int = 3, baseDelay: Duration = .milliseconds(500), maxDelay: Duration = .seconds(60),
                maxRetryAfter: Duration = .seconds(300),
                jitter: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.maxAttempts = maxAttempts
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
        self.maxRetryAfter = maxRetryAfter
        self.jitter = jitter
    }

    /// The wait after failed attempt number `attempt` (1-based), without a `Retry-After`.
    public func delay(afterAttempt attempt: Int) -> Duration {
        var wait = baseDelay
        for _ in 1..<max(attempt, 1) where wait < maxDelay { wait *= 2 }
        wait = min(wait, maxDelay)
        let j = min(max(jitter(), 0), 1)
        return wait * (0.5 + 0.5 * j)
    }
}

/// Parses `Retry-After` values.
public enum RetryAfter {
    /// The wait a `Retry-After` value asks for: delta seconds, or an HTTP-date (IMF-fixdate,
    /// `Sun, 06 Nov 1994 08:49:37 GMT`) relative to `now` (seconds since 1970, wall clock).
    ///
    /// A date in the past gives zero; an unreadable value gives nil.
    public static func parse(_ value: String, now: Double) -> Duration? {
        let text = value.trimmingCharacters(in: " \t")
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) {
            return Int(text).map { .seconds($0) } ?? .seconds(Int.max / 1_000_000)
        }
        guard let date = parseIMFFixdate(text) else { return nil }
        let wait = Double(date) - now
        return wait > 0 ? .milliseconds(Int64((wait * 1000).rounded(.up))) : .zero
    }

    /// Seconds since 1970 for an IMF-fixdate, or nil.
    static func parseIMFFixdate(_ text: String) -> Int? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].hasSuffix(","), parts[5] == "GMT",
              let day = Int(parts[1]), let year = Int(parts[3]),
              let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
                .firstIndex(of: String(parts[2]))
        else { return nil }
        let clock = parts[4].split(separator: ":")
        guard clock.count == 3, let h = Int(clock[0]), let m = Int(clock[1]), let s = Int(clock[2]),
              (1...31).contains(day), (0...23).contains(h), (0...59).contains(m), (0...60).contains(s)
        else { return nil }
        var parts_tm = tm()
        parts_tm.tm_year = Int32(year - 1900)
        parts_tm.tm_mon = Int32(month)
        parts_tm.tm_mday = Int32(day)
        parts_tm.tm_hour = Int32(h)
        parts_tm.tm_min = Int32(m)
        parts_tm.tm_sec = Int32(s)
        return Int(timegm(&parts_tm))
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
