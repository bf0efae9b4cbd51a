import FoundationEssentials
import WidgetCore

/// The clock's timeline: one entry per second for a minute, or one per minute for an hour,
/// then `.atEnd`.
///
/// Each entry is formatted with the offset in force at its own date, so a timeline that spans
/// a DST change shows the right time on both sides. With seconds off, the host wakes once a
/// minute and never between.
public struct ClockProvider: TimelineProvider {
    public let zone: ZoneInfo
    public let style: ClockStyle
    /// Where "now" comes from (the host's clock; a snapshot's chosen moment).
    public let now: @Sendable () -> Date

    public init(zone: ZoneInfo, style: ClockStyle, now: @escaping @Sendable () -> Date) {
        self.zone = zone
        self.style = style
        self.now = now
    }

    public func placeholder(in context: Context) -> ClockEntry {
        ClockEntry(date: .distantPast, time: style.hour24 ? "--:--" : "--:-- --", dateLine: "--- -- --- ----", zone: "---")
    }

    public func snapshot(in context: Context) async -> ClockEntry {
        ClockEntry(date: now(), zone: zone, style: style)
    }

    public func timeline(in context: Context) async throws -> Timeline<ClockEntry> {
        Timeline(entries: entries(from: now(), covering: context.minimumReloadInterval), policy: .atEnd)
    }

    /// The entries of one timeline starting at the step that contains `start`: 60 steps, or
    /// enough to reach `interval` seconds ahead when the host may not ask again sooner.
    public func entries(from start: Date, covering interval: TimeInterval = 0) -> [ClockEntry] {
        let step: Int64 = style.seconds ? 1 : 60
        // Bounded before the conversion: a NaN or infinite interval must not trap.
        let steps = interval.isNaN ? 0 : min(max(0, interval) / Double(step), 100_000)
        let needed = Int64(steps.rounded(.up)) + 1
        let count = min(max(60, needed), 100_000)
        let first = Int64(start.timeIntervalSince1970.rounded(.down)).floorDiv(step) * step
        return (0..<count).map { i in
            ClockEntry(date: Date(timeIntervalSince1970: TimeInterval(first + i * step)), zone: zone, style: style)
        }
    }
}

extension Int64 {
    /// Division rounding towards negative infinity.
    func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
