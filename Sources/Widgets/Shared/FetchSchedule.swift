import BackgroundSessions
import FoundationEssentials

/// When a widget that polls a URL through a background session fetches next: the leaderboard
/// and `http-json` share it.
///
/// Every figure may come from a state file, so none is trusted: waits are bounded where they
/// are used.
public enum FetchSchedule {
    /// The longest server's Retry-After kept: the transport's cap on its own waits
    /// (`RetryPolicy.maxRetryAfter`). A longer one must not lock a panel out for days.
    public static let maximumRetryAfter: TimeInterval = RetryPolicy().maxRetryAfter.inSeconds
    /// The longest wait after failures in a row (the backoff doubles up to this).
    public static let maximumBackoff: TimeInterval = 300

    /// How long to wait after the last attempt before fetching again: `refresh` while all is
    /// well; after failures in a row `refresh`, then doubling, up to `maximumBackoff` (or
    /// `refresh` when that is longer).
    public static func retryDelay(failures: Int, refresh: TimeInterval) -> TimeInterval {
        let refresh = max(1, refresh)
        guard failures > 1 else { return refresh }
        let cap = max(refresh, maximumBackoff)
        let doubled = refresh * Double(1 << min(failures - 1, 30))
        return min(cap, doubled)
    }

    /// When the next fetch of `url` is due after `now`, or nil when it is due now.
    ///
    /// After failures in a row the wait doubles (`retryDelay`); a server's Retry-After can
    /// only make it longer, and never by more than `maximumRetryAfter` after the attempt that
    /// got it (a state file may hold 1000 days). A last attempt in the future (the clock was
    /// stepped back) says nothing about now: fetch. Waits that belong to another URL
    /// (`attemptURL`) owe this one nothing: the config changed, fetch now.
    public static func nextFetch(lastAttempt: Date?, failures: Int, retryAfterUntil: Date?, attemptURL: String?,
                                 url: URL, refresh: TimeInterval, now: Date) -> Date? {
        if let attemptURL, attemptURL != url.absoluteString { return nil }
        guard let lastAttempt, lastAttempt <= now + 1 else { return nil }
        let delay = retryDelay(failures: failures, refresh: refresh)
        var due = lastAttempt + delay
        if let until = retryAfterUntil {
            due = max(due, min(until, lastAttempt + maximumRetryAfter))
        }
        // Half a second early counts as due: a reload at the policy date must not miss it.
        return due.timeIntervalSince(now) > 0.5 ? due : nil
    }
}
