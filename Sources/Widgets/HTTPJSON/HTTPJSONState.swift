import FoundationEssentials

/// What an `http-json` panel keeps between fetches (and restarts): how the last fetches went.
/// The last good body is kept next to it (`HTTPJSONStore`).
///
/// Read back from a file, so nothing is trusted: `sanitized()` brings counts and dates back
/// in bounds, and waits are bounded where they are used (`FetchSchedule`).
public struct HTTPJSONState: Sendable, Equatable, Codable {
    /// When the body kept was received (or confirmed by a 304).
    public var fetchedAt: Date?
    public var lastError: String?
    public var lastAttempt: Date?
    /// The server asked not to be asked again before this (Retry-After).
    public var retryAfterUntil: Date?
    /// The last body could not be read: a 304 for it confirms nothing.
    public var lastBodyRejected = false
    public var consecutiveFailures = 0
    /// The URL the last attempt was for.
    public var attemptURL: String?

    public init() {}

    static let maximumFailuresCounted = 64

    func sanitized() -> HTTPJSONState {
        var state = self
        func finite(_ date: Date?) -> Date? { date.flatMap { $0.timeIntervalSinceReferenceDate.isFinite ? $0 : nil } }
        state.fetchedAt = finite(fetchedAt)
        state.lastAttempt = finite(lastAttempt)
        state.retryAfterUntil = finite(retryAfterUntil)
        state.consecutiveFailures = min(max(0, consecutiveFailures), Self.maximumFailuresCounted)
        if let error = lastError, error.utf8.count > 1024 { state.lastError = String(error.prefix(256)) }
        if let url = attemptURL, url.utf8.count > 8192 { state.attemptURL = nil }
        return state
    }

    /// A body that parses arrived at `date`.
    mutating func received(at date: Date) {
        fetchedAt = date
        lastError = nil
        lastAttempt = date
        retryAfterUntil = nil
        lastBodyRejected = false
        consecutiveFailures = 0
    }

    /// The body could not be read: the values kept stay; a later 304 for it confirms nothing.
    mutating func rejected(_ reason: String, at date: Date) {
        failed(reason, at: date)
        lastBodyRejected = true
    }

    /// 304: the body kept is fresh as of `date` — unless it is one that could not be read.
    mutating func confirmed(at date: Date, haveBody: Bool) {
        lastAttempt = date
        guard !lastBodyRejected else {
            consecutiveFailures = min(consecutiveFailures + 1, Self.maximumFailuresCounted)
            return
        }
        fetchedAt = haveBody ? date : nil
        lastError = nil
        retryAfterUntil = nil
        consecutiveFailures = 0
    }

    /// A fetch failed: the values stay, the reason is shown, the backoff grows.
    mutating func failed(_ reason: String, at date: Date, retryAfter: Duration? = nil) {
        lastError = reason
        lastAttempt = date
        consecutiveFailures = min(consecutiveFailures + 1, Self.maximumFailuresCounted)
        retryAfterUntil = retryAfter.map { wait in date + min(max(0, wait.inSeconds), FetchSchedule.maximumRetryAfter) }
    }
}
