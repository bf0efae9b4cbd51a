import FoundationEssentials
import WidgetCore

/// One moment of a countdown, its text already laid out.
public struct CountdownEntry: TimelineEntry, Equatable, Codable {
    public var date: Date
    public var label: String
    /// What is left, rounded up: "12d 4h 5m", "4h 5m", "5m" before the last minute, "42s" in it.
    public var remaining: String
    public var isDone: Bool
    /// The target in the local zone: "Thu 31 Dec 2026 23:59".
    public var target: String
    /// The same, shorter, for narrow panels: "31 Dec 23:59".
    public var shortTarget: String

    public init(date: Date, label: String, remaining: String, isDone: Bool, target: String, shortTarget: String = "") {
        self.date = date
        self.label = label
        self.remaining = remaining
        self.isDone = isDone
        self.target = target
        self.shortTarget = shortTarget
    }

    /// What is left from `seconds` before the end: minutes rounded up, seconds in the last
    /// minute, "done" at 0 or after (NaN counts as done; any huge value is safe).
    public static func remainingText(_ seconds: TimeInterval) -> String {
        guard seconds > 0 else { return "done" }
        if seconds < 60 { return "\(Int(seconds.rounded(.up)))s" }
        let minutes = Int(min((seconds / 60).rounded(.up), 1e12))
        let (days, hours, rest) = (minutes / 1440, minutes % 1440 / 60, minutes % 60)
        if days > 0 { return "\(days)d \(hours)h \(rest)m" }
        if hours > 0 { return "\(hours)h \(rest)m" }
        return "\(rest)m"
    }
}
