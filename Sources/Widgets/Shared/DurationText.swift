import FoundationEssentials

/// Durations and ages as panels show them, at minute resolution so the text changes no more
/// often than a minute timeline wakes.
public enum DurationText {
    /// "<1m", "45m", "2h", "2h 13m"; rounded up to the minute; "3d" from two days on.
    public static func duration(_ seconds: TimeInterval) -> String {
        let minutes = Int((max(0, seconds) / 60).rounded(.up))
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
}
