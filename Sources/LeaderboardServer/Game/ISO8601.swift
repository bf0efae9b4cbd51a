import Glibc

/// ISO 8601 UTC timestamps as the leaderboard sends them: `2026-11-30T05:00:00Z`.
public enum ISO8601 {
    /// Formats seconds since 1970 (UTC), whole seconds.
    public static func format(secondsSince1970 seconds: Int) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))"
            + "T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }
}
