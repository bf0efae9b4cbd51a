import FoundationEssentials

/// How the fetches of one URL have gone, kept between fetches (and restarts) by the widgets
/// that poll through a background session: the leaderboard (inside `LeaderboardState`) and
/// `http-json`. `FetchSchedule` turns it into the next fetch's date.
///
/// Read back from a file, so nothing is trusted: `sanitized()` brings counts and dates back
/// in bounds, and waits are bounded where they are used.
public struct FetchRecord: Sendable, Equatable, Codable {
    /// When the data kept was received (or confirmed by a 304).
    public var fetchedAt: Date?
    /// Why the last fetch failed; nil after one that worked.
    public var lastError: String?
    public var lastAttempt: Date?
    /// The server asked not to be asked again before this (Retry-After), at most
    /// `FetchSchedule.maximumRetryAfter` after it was asked.
    public var retryAfterUntil: Date?
    /// The last body the server sent could not be read: a 304 for it confirms nothing.
    public var lastBodyRejected = false
    /// Fetches that failed in a row (0 after data or a 304 that confirms it).
    public var consecutiveFailures = 0
    /// The URL the last attempt (and so `retryAfterUntil` and the failures) was for: another
    /// URL configured now owes nothing to them.
    public var attemptURL: String?

    public init(fetchedAt: Date? = nil, lastError: String? = nil, lastAttempt: Date? = nil) {
        self.fetchedAt = fetchedAt
        self.lastError = lastError
        self.lastAttempt = lastAttempt
    }

    public static let maximumFailuresCounted = 64

    /// The record with what a damaged or edited file could make harmful brought back in
    /// bounds: counts clamped, non-finite dates forgotten, long texts cut.
    public func sanitized() -> FetchRecord {
        var record = self
        func finite(_ date: Date?) -> Date? { date.flatMap { $0.timeIntervalSinceReferenceDate.isFinite ? $0 : nil } }
        record.fetchedAt = finite(fetchedAt)
        record.lastAttempt = finite(lastAttempt)
        record.retryAfterUntil = finite(retryAfterUntil)
        record.consecutiveFailures = min(max(0, consecutiveFailures), Self.maximumFailuresCounted)
        if let error = lastError, error.utf8.count > 1024 { record.lastError = String(error.prefix(256)) }
        if let url = attemptURL, url.utf8.count > 8192 { record.attemptURL = nil }
        return record
    }

    /// Data that could be read arrived at `date`: the error and the waits clear.
    public mutating func succeeded(at date: Date) {
        fetchedAt = date
        lastError = nil
        lastAttempt = date
        retryAfterUntil = nil
        lastBodyRejected = false
        consecutiveFailures = 0
    }

    /// The body could not be read: the data kept stays, and a later "not modified" for that
    /// same body confirms nothing.
    public mutating func rejected(_ reason: String, at date: Date) {
        failed(reason, at: date)
        lastBodyRejected = true
    }

    /// The server said nothing changed (304): the data kept (if any: `haveData`) is fresh as
    /// of `date` — unless what did not change is a body that could not be read, whose error
    /// then stays (and counts as one more failure, so the backoff goes on).
    public mutating func confirmed(at date: Date, haveData: Bool) {
        lastAttempt = date
        guard !lastBodyRejected else {
            consecutiveFailures = min(consecutiveFailures + 1, Self.maximumFailuresCounted)
            return
        }
        fetchedAt = haveData ? date : nil
        lastError = nil
        retryAfterUntil = nil
        consecutiveFailures = 0
    }

    /// A fetch failed: the data stays, the reason is kept for the panel, the backoff grows.
    /// A server's `retryAfter` is kept, at most `FetchSchedule.maximumRetryAfter`.
    public mutating func failed(_ reason: String, at date: Date, retryAfter: Duration? = nil) {
        lastError = reason
        lastAttempt = date
        consecutiveFailures = min(consecutiveFailures + 1, Self.maximumFailuresCounted)
        retryAfterUntil = retryAfter.map { wait in date + min(max(0, wait.inSeconds), FetchSchedule.maximumRetryAfter) }
    }

    /// When the next fetch of `url` is due after `now` (nil: now); see `FetchSchedule`.
    public func nextFetch(url: URL, refresh: TimeInterval, now: Date) -> Date? {
        FetchSchedule.nextFetch(lastAttempt: lastAttempt, failures: consecutiveFailures, retryAfterUntil: retryAfterUntil,
                                attemptURL: attemptURL, url: url, refresh: refresh, now: now)
    }
}
