import DateTime
import FoundationEssentials
import WidgetCore

/// One moment of the clock widget, with its text already laid out for the zone in force.
public struct ClockEntry: TimelineEntry, Equatable, Codable {
    public var date: Date
    /// "14:05", "14:05:09", "2:05 PM" or "2:05:09 PM".
    public var time: String
    /// "Mon 30 Nov 2026", or "" when the style hides the date.
    public var dateLine: String
    /// The zone's abbreviation at this moment ("CET", "CEST", "UTC").
    public var zone: String
    /// The zone's offset from `date` on, in seconds east of UTC: the view then draws the time
    /// at each frame's moment (a clock face) in `time`'s shape. nil (a placeholder, an entry
    /// of an older log): `time` and `dateLine` as they are.
    public var utcOffset: Int?

    public init(date: Date, time: String, dateLine: String, zone: String, utcOffset: Int? = nil) {
        self.date = date
        self.time = time
        self.dateLine = dateLine
        self.zone = zone
        self.utcOffset = utcOffset
    }

    /// The entry for `date` in `zone`, formatted as `style` says.
    public init(date: Date, zone: ZoneInfo, style: ClockStyle) {
        let offset = zone.offset(at: date)
        let t = CivilTime(unixSeconds: Int64(date.timeIntervalSince1970.rounded(.down)), offset: offset.seconds)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var text: String
        if style.hour24 {
            text = "\(two(t.hour)):\(two(t.minute))"
        } else {
            let h = t.hour % 12 == 0 ? 12 : t.hour % 12
            text = "\(h):\(two(t.minute))"
        }
        if style.seconds { text += ":\(two(t.second))" }
        if !style.hour24 { text += t.hour < 12 ? " AM" : " PM" }
        self.init(
            date: date,
            time: text,
            dateLine: style.showDate ? "\(CivilTime.weekdayNames[t.weekday]) \(t.day) \(CivilTime.monthNames[t.month - 1]) \(t.year)" : "",
            zone: offset.abbreviation,
            utcOffset: offset.seconds
        )
    }
}

/// How the clock shows time.
public struct ClockStyle: Sendable, Equatable {
    public var seconds: Bool
    public var hour24: Bool
    public var showDate: Bool

    public init(seconds: Bool = false, hour24: Bool = true, showDate: Bool = true) {
        self.seconds = seconds
        self.hour24 = hour24
        self.showDate = showDate
    }
}
