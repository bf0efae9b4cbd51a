import FoundationEssentials
import WidgetCore

/// The clock's timeline: a day of entries, one for each change of the zone's offset (and, in
/// 12-hour style, one an hour, as the digits' count changes at 1:00 and 10:00), then
/// `.after(a day)`: one timeline a day.
///
/// The time itself is text that updates itself (a clock face, `DateText`): the host draws it
/// at each frame's time and wakes each second (minute) it changes, with no entry per second.
/// Each entry carries the offset in force from its date, so a day that spans a DST change
/// shows the right time on both sides.
public struct ClockProvider: TimelineProvider {
    public let zone: ZoneInfo
    public let style: ClockStyle
    /// Where "now" comes from (the host's clock; a snapshot's chosen moment).
    public let now: @Sendable () -> Date

    /// How far one timeline reaches, unless the host asks less often.
    public static let day: TimeInterval = 86_400

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
        let start = now()
        let end = start + Self.reach(covering: context.minimumReloadInterval)
        return Timeline(entries: entries(from: start, covering: context.minimumReloadInterval), policy: .after(end))
    }

    /// A day, or the host's minimum interval when it is longer (at most 400 days).
    static func reach(covering interval: TimeInterval) -> TimeInterval {
        interval.isNaN ? day : min(max(day, interval), 400 * day)
    }

    /// The entries of one timeline from the second that contains `start`: that second, each
    /// moment the zone's offset changes, and in 12-hour style each whole hour, up to a day
    /// (or `interval`) ahead.
    public func entries(from start: Date, covering interval: TimeInterval = 0) -> [ClockEntry] {
        let first = Int64(start.timeIntervalSince1970.rounded(.down))
        let end = first + Int64(Self.reach(covering: interval))
        var dates: [Int64] = [first]
        // The offset is looked at each hour (a zone changes it at most once in one), and a
        // change is found to the second between two looks.
        var previous = first
        var hour = (first + Int64(zone.offset(at: start).seconds)).floorDiv(3600) * 3600 - Int64(zone.offset(at: start).seconds) + 3600
        while hour <= end {
            if zone.offset(at: Self.date(hour)) != zone.offset(at: Self.date(previous)) {
                dates.append(changeBetween(previous, hour))
            }
            // A change can move local hours off UTC's: a 12-hour clock's entry at each local hour.
            if !style.hour24 { dates.append(hour) }
            previous = hour
            hour += 3600
        }
        return Array(Set(dates)).sorted().map { ClockEntry(date: Self.date($0), zone: zone, style: style) }
    }

    /// The first second in `(low, high]` at which the offset differs from the one at `low`.
    private func changeBetween(_ low: Int64, _ high: Int64) -> Int64 {
        let before = zone.offset(at: Self.date(low))
        var (low, high) = (low, high)
        while high - low > 1 {
            let mid = (low + high) / 2
            if zone.offset(at: Self.date(mid)) == before { low = mid } else { high = mid }
        }
        return high
    }

    private static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}

extension Int64 {
    /// Division rounding towards negative infinity.
    func floorDiv(_ d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
