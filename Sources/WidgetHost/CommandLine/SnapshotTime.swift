import FoundationEssentials
import Widgets

/// The moment `snapshot --at` renders: a fixed date or an offset from now.
public enum SnapshotTime: Sendable, Equatable {
    /// An absolute moment (`2026-11-30T05:00:00Z`, `2026-11-30T06:00:00+01:00`).
    case absolute(Date)
    /// Seconds after the moment the snapshot starts (`+90s`, `+5m`, `+2h`).
    case relative(seconds: Int)

    /// Furthest relative offset accepted: 366 days.
    public static let maximumOffset = 366 * 86_400

    /// The date this stands for, given the current one.
    public func date(now: Date) -> Date {
        switch self {
        case .absolute(let date): date
        case .relative(let seconds): now.addingTimeInterval(TimeInterval(seconds))
        }
    }

    /// Parses `--at`'s argument; nil when it is neither form.
    ///
    /// Absolute: `YYYY-MM-DDTHH:MM[:SS[.fraction]]` followed by `Z` or an offset `±HH:MM`
    /// (a time without a zone is rejected: it would depend on the machine). Relative: `+`,
    /// digits, then `s`, `m` or `h`, at most `maximumOffset`.
    public init?(parsing text: String) {
        if text.hasPrefix("+") {
            guard let seconds = Self.parseRelative(text.dropFirst()) else { return nil }
            self = .relative(seconds: seconds)
        } else {
            guard let date = Self.parseISO8601(Array(text.utf8)) else { return nil }
            self = .absolute(date)
        }
    }

    static func parseRelative(_ text: Substring) -> Int? {
        guard let unit = text.last, text.count >= 2, text.count <= 12 else { return nil }
        let digits = text.dropLast()
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }), let amount = Int(digits) else { return nil }
        let scale: Int
        switch unit {
        case "s": scale = 1
        case "m": scale = 60
        case "h": scale = 3600
        default: return nil
        }
        let (seconds, overflow) = amount.multipliedReportingOverflow(by: scale)
        guard !overflow, seconds <= maximumOffset else { return nil }
        return seconds
    }

    static func parseISO8601(_ bytes: [UInt8]) -> Date? {
        var index = 0
        func number(_ width: Int) -> Int? {
            guard index + width <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + width] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += width
            return value
        }
        func expect(_ character: Character) -> Bool {
            guard index < bytes.count, bytes[index] == character.asciiValue else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              expect("T"), let hour = number(2), expect(":"), let minute = number(2) else { return nil }
        var second = 0
        var fraction = 0.0
        if expect(":") {
            guard let parsed = number(2) else { return nil }
            second = parsed
            if expect(".") {
                var scale = 0.1
                var digits = 0
                while index < bytes.count, (48...57).contains(bytes[index]), digits < 9 {
                    fraction += Double(bytes[index] - 48) * scale
                    scale /= 10
                    digits += 1
                    index += 1
                }
                guard digits > 0 else { return nil }
            }
        }
        var offset = 0
        if expect("Z") {
            offset = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let offsetHours = number(2) else { return nil }
            _ = expect(":")
            guard let offsetMinutes = number(2), offsetHours <= 23, offsetMinutes <= 59 else { return nil }
            offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count, year >= 1, (1...12).contains(month),
              (1...daysIn(month: month, year: year)).contains(day),
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        let days = Int(CivilTime.days(year: year, month: month, day: day))
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: TimeInterval(seconds) + fraction)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

}
