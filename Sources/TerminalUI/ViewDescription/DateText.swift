import DateTime
import FoundationEssentials

/// Text that updates itself (WidgetKit's `Text(date, style:)`): a date and how to write it,
/// written by the host at the time a frame is drawn, with the next moment its text changes.
///
/// The styles (docs/views.md, "Dates"): `time` "14:05" and `date` "Wed 2 Dec 2026" write the
/// date itself in its UTC offset and never change; `relative` "4m ago" / "in 2h 13m" and
/// `offset` "-4m" / "+2h 13m" change by the minute (by the day past two days); `timer` counts
/// down to the date and up from it, "4:05" or "1:02:03", each second.
///
/// A clock `face` (host-internal, the clock widget's) writes the frame's own time in the
/// offset instead: the time of day changes each second or minute, a date at midnight.
///
/// Everything is bounded: a date beyond ±3e11 s, NaN or infinity writes "—" and never changes.
public struct DateText: Sendable, Equatable {
    public enum Style: String, Sendable, Equatable, CaseIterable {
        case time, date, relative, offset, timer
    }

    /// A part of a clock face.
    public enum Field: Sendable, Equatable {
        /// "14", "09" (00…23).
        case hour24
        /// "2", "12" (1…12).
        case hour12
        /// "05".
        case minute
        /// "09".
        case second
        /// "AM" or "PM".
        case meridiem
        /// "Wed 2 Dec 2026".
        case date
        case literal(String)
    }

    public var date: Date
    public var style: Style
    /// Seconds east of UTC in which `time`, `date` and a face are written.
    public var utcOffset: Int
    /// Host-internal: the frame's time in `utcOffset` written with these fields (the clock);
    /// `style` is then unused, and `date` is what it shows drawn with no time.
    public var face: [Field]?

    /// Host-internal ways to write the time left to `date`, beyond the styles.
    public enum Count: Sendable, Equatable {
        /// The countdown's: "12d 4h 5m", "4h 5m", "5m", then "42s" in the last minute, "done"
        /// from the date; minutes and seconds rounded up.
        case countdown
        /// "40s": whole seconds left, rounded up; "0s" from the date ("retry in 40s").
        case seconds
    }

    /// Host-internal: the time left written as `count` says instead of `style`.
    public var count: Count?

    /// Host-internal: the moment the text is written at when a view is drawn with no time (a
    /// preview, a view's JSON): the entry's date. nil: `date` itself.
    public var shownAt: Date?

    public init(_ date: Date, style: Style, utcOffset: Int = 0, shownAt: Date? = nil) {
        self.date = date
        self.style = style
        self.utcOffset = min(max(-86_400, utcOffset), 86_400)
        self.shownAt = shownAt
    }

    /// The text when no frame time is given: at `shownAt`, else at `date`.
    public var textWithoutTime: String { text(at: shownAt ?? date) }

    /// A clock face: the time a frame is drawn at, in `utcOffset`, written as `fields` say.
    /// `date` is the moment it shows when drawn with no time (a preview, a gallery): the entry's.
    public static func clock(_ fields: [Field], utcOffset: Int, date: Date = Date(timeIntervalSince1970: 0)) -> DateText {
        var text = DateText(date, style: .time, utcOffset: utcOffset)
        text.face = fields
        return text
    }

    /// What is left until `end` as the countdown writes it ("4h 5m", "42s", "done").
    public static func countingDown(to end: Date, shownAt: Date? = nil) -> DateText {
        var text = DateText(end, style: .timer, shownAt: shownAt)
        text.count = .countdown
        return text
    }

    /// Whole seconds left until `end` ("40s", "0s" from it).
    public static func secondsLeft(to end: Date, shownAt: Date? = nil) -> DateText {
        var text = DateText(end, style: .timer, shownAt: shownAt)
        text.count = .seconds
        return text
    }

    /// Dates the formatter writes; others read "—" (CivilTime's arithmetic stays far from overflow).
    public static let maximumSeconds = 3e11

    /// The text at `now`.
    public func text(at now: Date) -> String {
        if let face { return Self.write(face, at: now, utcOffset: utcOffset) }
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < Self.maximumSeconds else { return "—" }
        let delta = now.timeIntervalSince(date)
        switch count {
        case .countdown?: return Self.countdown(-delta)
        case .seconds?: return "\(Int(min(max(0, -delta).rounded(.up), Self.maximumSeconds)))s"
        case nil: break
        }
        switch style {
        case .time: return Self.write([.hour24, .literal(":"), .minute], at: date, utcOffset: utcOffset)
        case .date: return Self.write([.date], at: date, utcOffset: utcOffset)
        case .relative: return delta >= 0 ? DurationFormat.age(delta) + " ago" : "in " + DurationFormat.duration(-delta)
        case .offset: return delta >= 0 ? "-" + DurationFormat.age(delta) : "+" + DurationFormat.duration(-delta)
        case .timer: return Self.timer(delta >= 0 ? delta.rounded(.down) : (-delta).rounded(.up))
        }
    }

    /// The first moment after `now` at which `text(at:)` differs from its text at `now`; nil
    /// when it never changes.
    public func nextChange(after now: Date) -> Date? {
        // Never at or before `now`, whatever the rounding of a fractional date: no hot loop.
        guard let next = computedChange(after: now) else { return nil }
        return next > now ? next : now + 1
    }

    private func computedChange(after now: Date) -> Date? {
        if let face { return Self.nextFaceChange(face, after: now, utcOffset: utcOffset) }
        let seconds = date.timeIntervalSince1970
        let delta = now.timeIntervalSince(date)
        guard seconds.isFinite, abs(seconds) < Self.maximumSeconds, delta.isFinite else { return nil }
        if let count {
            // Whole seconds left, rounded up, drop by one at each whole second before the date;
            // a countdown above a minute changes at each whole minute left instead.
            let left = -delta
            guard left > 0 else { return nil }
            let minutes = (left / 60).rounded(.up)
            if count == .countdown, left > 59 { return minutes >= 2 ? date - (minutes - 1) * 60 : date - 59 }
            return date - (left.rounded(.up) - 1)
        }
        switch style {
        case .time, .date:
            return nil
        case .timer:
            // Up: at each whole second after the date; down: as the seconds left (rounded up)
            // drop by one.
            return date + (delta.rounded(.down) + 1)
        case .relative, .offset:
            guard abs(delta) < Double(DurationFormat.maximumDays) * 86_400 else { return nil }
            if delta >= 0 {
                // Whole minutes past, or whole days past two days.
                let unit: Double = delta >= 2880 * 60 ? 86_400 : 60
                return date + ((delta / unit).rounded(.down) + 1) * unit
            }
            // Minutes left, rounded up: the text changes as it drops to the next whole minute
            // (to the next whole day past two days); at the date it turns to "ago".
            let minutesLeft = (-delta / 60).rounded(.up)
            let next = minutesLeft > 2880 ? ((minutesLeft / 1440).rounded(.down) * 1440 - 1) : minutesLeft - 1
            return date - max(0, next) * 60
        }
    }

    /// What is left of `seconds`: minutes rounded up ("12d 4h 5m", "4h 5m", "5m"), "42s" in
    /// the last minute, "done" at 0 or after (NaN counts as done; any huge value is safe).
    public static func countdown(_ seconds: TimeInterval) -> String {
        guard seconds > 0 else { return "done" }
        if seconds.rounded(.up) < 60 { return "\(Int(seconds.rounded(.up)))s" }
        let minutes = Int(min((seconds / 60).rounded(.up), 1e12))
        let (days, hours, rest) = (minutes / 1440, minutes % 1440 / 60, minutes % 60)
        if days > 0 { return "\(days)d \(hours)h \(rest)m" }
        if hours > 0 { return "\(hours)h \(rest)m" }
        return "\(rest)m"
    }

    /// "4:05", "1:02:03" for whole seconds.
    static func timer(_ seconds: Double) -> String {
        let total = Int(min(seconds, Double(DurationFormat.maximumDays) * 86_400))
        let (h, m, s) = (total / 3600, total / 60 % 60, total % 60)
        return h > 0 ? "\(h):\(two(m)):\(two(s))" : "\(m):\(two(s))"
    }

    static func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    static func write(_ fields: [Field], at moment: Date, utcOffset: Int) -> String {
        let seconds = moment.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < maximumSeconds else { return "—" }
        let t = CivilTime(unixSeconds: Int64(seconds.rounded(.down)), offset: utcOffset)
        return fields.map { field in
            switch field {
            case .hour24: two(t.hour)
            case .hour12: "\(t.hour % 12 == 0 ? 12 : t.hour % 12)"
            case .minute: two(t.minute)
            case .second: two(t.second)
            case .meridiem: t.hour < 12 ? "AM" : "PM"
            case .date: "\(CivilTime.weekdayNames[t.weekday]) \(t.day) \(CivilTime.monthNames[t.month - 1]) \(t.year)"
            case .literal(let text): text
            }
        }.joined()
    }

    /// The next whole second, minute or local midnight, by the finest field the face shows.
    static func nextFaceChange(_ fields: [Field], after now: Date, utcOffset: Int) -> Date? {
        let seconds = now.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < maximumSeconds else { return nil }
        let local = seconds + Double(utcOffset)
        let unit: Double
        if fields.contains(.second) {
            unit = 1
        } else if fields.contains(where: { [.hour24, .hour12, .minute, .meridiem].contains($0) }) {
            unit = 60
        } else if fields.contains(.date) {
            unit = 86_400
        } else {
            return nil
        }
        return Date(timeIntervalSince1970: ((local / unit).rounded(.down) + 1) * unit - Double(utcOffset))
    }
}

/// Durations and ages as panels show them, at minute resolution: "<1m", "45m", "2h 13m", "3d".
///
/// Every input may be untrusted, so nothing traps: NaN and negative durations read "<1m",
/// anything beyond `maximumDays` (infinity included) ">99999d". (`DurationText` in Widgets is
/// the same.)
public enum DurationFormat {
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

    /// An age of `seconds`, in whole minutes rounded down ("<1m", "4m", "2h 5m").
    public static func age(_ seconds: TimeInterval) -> String {
        duration((max(0, seconds) / 60).rounded(.down) * 60)
    }
}

extension DateText {
    /// `date` as ISO 8601 in `utcOffset` ("2026-12-02T14:05:00+01:00", `Z` at 0), to the
    /// millisecond when it has a fraction: what the view format's `date` reads back.
    public static func iso(_ date: Date, utcOffset: Int) -> String {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < maximumSeconds else { return "1970-01-01T00:00:00Z" }
        let whole = seconds.rounded(.down)
        let t = CivilTime(unixSeconds: Int64(whole), offset: utcOffset)
        func pad(_ n: Int, _ width: Int) -> String { String(repeating: "0", count: max(0, width - String(n).count)) + String(n) }
        var text = "\(pad(t.year, 4))-\(two(t.month))-\(two(t.day))T\(two(t.hour)):\(two(t.minute)):\(two(t.second))"
        let millis = Int(((seconds - whole) * 1000).rounded())
        if millis > 0 && millis < 1000 { text += "." + pad(millis, 3) }
        guard utcOffset != 0 else { return text + "Z" }
        let minutes = abs(utcOffset) / 60
        return text + (utcOffset < 0 ? "-" : "+") + two(minutes / 60) + ":" + two(minutes % 60)
    }
}
