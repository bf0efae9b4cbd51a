import FoundationEssentials
import TerminalUI
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
    /// The end: the view then draws what is left at each frame's time (text that updates
    /// itself). nil (a placeholder, an entry of an older log): `remaining` as it is.
    public var end: Date?

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
        DateText.countdown(seconds)
    }
}
