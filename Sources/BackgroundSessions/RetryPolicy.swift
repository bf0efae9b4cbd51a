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
        guard let date = parseIMFFixdate(text) else { return nil }
        guard now.isFinite else { return nil }
        let wait = Double(date) - now
        guard wait > 0 else { return .zero }
        guard wait < Double(longestSeconds) else { return longest }
        // wait is in (0, 100 years): its milliseconds fit an Int64 with room to spare.
        return .milliseconds(Int64((wait * 1000).rounded(.up)))
    }

    /// Seconds since 1970 for an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`), or nil.
    ///
    /// Strict about the shape (two-digit day, four-digit year, `hh:mm:ss`), so every field is
    /// small before any arithmetic: a year like 99999999999 is refused, not converted.
    static func parseIMFFixdate(_ text: String) -> Int? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
              parts[1].count == 2, parts[3].count == 4,
              let day = digits(parts[1]), let year = digits(parts[3]),
              let month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
                .firstIndex(of: String(parts[2]))
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let h = digits(clock[0]), let m = digits(clock[1]), let s = digits(clock[2]),
              (1...31).contains(day), (0...23).contains(h), (0...59).contains(m), (0...60).contains(s)
        else { return nil }
        return daysSince1970(year: year, month: month + 1, day: day) * 86_400 + h * 3600 + m * 60 + s
    }

    /// The value of a short run of ASCII digits (at most 4 here), or nil.
    private static func digits(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 4, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return text.utf8.reduce(0) { $0 * 10 + Int($1 - 48) }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm); the
    /// C library's `timegm` is avoided because its `tm` fields are `Int32`.
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
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
