import FoundationEssentials

/// When a countdown ends, as its `to` option writes it: ISO 8601 with an offset
/// (`2026-12-31T23:59:00+01:00`, `…Z`), or a local date and time (`2026-12-31T23:59`,
/// `2026-12-31`) read in the host's zone.
///
/// The one parser of `to`: the config checker (`OptionType.dateTime`) and the provider both use
/// it, so a value the config accepts is one the widget can count down to.
public enum CountdownTarget: Sendable, Equatable {
    /// A moment: the text had `Z` or an offset.
    case absolute(Date)
    /// A wall-clock time in the local zone, resolved when the provider is made.
    case local(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int)

    /// Years a target may have.
    public static let years = 1900...9999

    /// The target `text` names, or nil when it is not one of the accepted forms or not a real
    /// date (`2026-02-30`, `24:00`).
    ///
    /// Forms: `YYYY-MM-DD`, `YYYY-MM-DDTHH:MM`, `YYYY-MM-DDTHH:MM:SS`, seconds optionally with
    /// a fraction (dropped), then optionally `Z`, `±HH:MM` or `±HHMM`.
    public static func parse(_ text: String) -> CountdownTarget? {
        let bytes = Array(text.utf8)
        guard bytes.count <= 40 else { return nil }
        var position = 0
        func number(_ digits: Int) -> Int? {
            guard position + digits <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[position..<(position + digits)] {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            position += digits
            return value
        }
        func take(_ character: Character) -> Bool {
            guard position < bytes.count, bytes[position] == character.asciiValue else { return false }
            position += 1
            return true
        }
        guard let year = number(4), take("-"), let month = number(2), take("-"), let day = number(2),
              years.contains(year), (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        var hour = 0, minute = 0, second = 0
        if position == bytes.count { return .local(year: year, month: month, day: day, hour: 0, minute: 0, second: 0) }
        guard take("T") || take("t"), let h = number(2), take(":"), let m = number(2), h < 24, m < 60 else { return nil }
        (hour, minute) = (h, m)
        if take(":") {
            guard let s = number(2), s < 60 else { return nil }
            second = s
            if take(".") || take(",") {
                let start = position
                while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") { position += 1 }
                guard position > start else { return nil }
            }
        }
        let wall = CivilTime.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
        if position == bytes.count {
            return .local(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        }
        if take("Z") || take("z") {
            guard position == bytes.count else { return nil }
            return .absolute(Date(timeIntervalSince1970: TimeInterval(wall)))
        }
        let sign: Int64
        if take("+") { sign = 1 } else if take("-") { sign = -1 } else { return nil }
        guard let offsetHours = number(2) else { return nil }
        _ = take(":")
        guard let offsetMinutes = number(2), position == bytes.count, offsetHours <= 18, offsetMinutes < 60 else { return nil }
        let offset = sign * Int64(offsetHours * 3600 + offsetMinutes * 60)
        return .absolute(Date(timeIntervalSince1970: TimeInterval(wall - offset)))
    }

    /// The moment the target stands for, a local one read in `zone` (a wall time skipped by a
    /// DST change counts with the offset before it).
    public func date(in zone: ZoneInfo) -> Date {
        switch self {
        case .absolute(let date):
            return date
        case let .local(year, month, day, hour, minute, second):
            let wall = CivilTime.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
            let guess = wall - Int64(zone.offset(at: Date(timeIntervalSince1970: TimeInterval(wall))).seconds)
            let offset = zone.offset(at: Date(timeIntervalSince1970: TimeInterval(guess))).seconds
            return Date(timeIntervalSince1970: TimeInterval(wall - Int64(offset)))
        }
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
