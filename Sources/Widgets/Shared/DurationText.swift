import FoundationEssentials
import TerminalUI
import WidgetCore

/// Durations and ages as panels show them, at minute resolution so the text changes no more
/// often than a minute timeline wakes.
///
/// Every input may come from untrusted data (a hero's recovery rate, a server's dates), so
/// nothing here traps: NaN and negative durations read "<1m", and anything beyond
/// `maximumDays` (infinity included) reads ">99999d".
public enum DurationText {
    /// The longest duration written out; longer ones read ">99999d".
    public static let maximumDays = DurationFormat.maximumDays

    /// "<1m", "45m", "2h", "2h 13m"; rounded up to the minute; "3d" from two days on.
    /// (TerminalUI's `DurationFormat`, which a `relative` date node writes too.)
    public static func duration(_ seconds: TimeInterval) -> String {
        DurationFormat.duration(seconds)
    }

    /// How long ago `then` was at `now`, in whole minutes ("<1m", "4m", "2h 5m").
    public static func age(from then: Date, to now: Date) -> String {
        DurationFormat.age(now.timeIntervalSince(then))
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
