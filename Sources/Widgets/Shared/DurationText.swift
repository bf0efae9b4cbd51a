import FoundationEssentials
import WidgetCore

/// Durations and ages as panels show them, at minute resolution so the text changes no more
/// often than a minute timeline wakes.
///
/// Every input may come from untrusted data (a hero's recovery rate, a server's dates), so
/// nothing here traps: NaN and negative durations read "<1m", and anything beyond
/// `maximumDays` (infinity included) reads ">99999d".
public enum DurationText {
    /// The longest duration written out; longer ones read ">99999d".
    public static let maximumDays = 99_999

    /// "<1m", "45m", "2h", "2h 13m"; rounded up to the minute; "3d" from two days on.
    public static func duration(_ seconds: TimeInterval) -> String {
        guard seconds > 0 else { return "<1m" }   // also NaN
        let limit = Double(maximumDays) * 1440
        let exactMinutes = (seconds / 60).rounded(.up)
        guard exactMinutes <= limit else { return ">\(maximumDays)d" }   // also +infinity
        let minutes = Int(exactMinutes)
        switch minutes {
        case ..<1: return "<1m"
        case ..<60: return "\(minutes)m"
        case ..<(48 * 60): return minutes % 60 == 0 ? "\(minutes / 60)h" : "\(minutes / 60)h \(minutes % 60)m"
        default: return "\(minutes / 1440)d"
        }
    }

    /// How long ago `then` was at `now`, in whole minutes ("<1m", "4m", "2h 5m").
    public static func age(from then: Date, to now: Date) -> String {
        let minutes = (max(0, now.timeIntervalSince(then)) / 60).rounded(.down)
        return duration(minutes * 60)
    }

    /// Whole seconds, rounded up, for "retry in Ns": clamped to 0…`maximumSeconds` (NaN is 0).
    public static func wholeSeconds(_ seconds: TimeInterval, maximumSeconds: Int = 86_400 * maximumDays) -> Int {
        guard seconds > 0 else { return 0 }
        let rounded = seconds.rounded(.up)
        return rounded < Double(maximumSeconds) ? Int(rounded) : maximumSeconds
    }

    /// `wholeSeconds` of a `Duration` (any value, including the extremes of its range).
    public static func wholeSeconds(_ duration: Duration) -> Int {
        wholeSeconds(duration.inSeconds)
    }
}
