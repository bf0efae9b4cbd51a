import FoundationEssentials

/// Dates in extension messages: ISO 8601 with a time zone, `2026-11-30T22:05:00Z`,
/// `2026-11-30T23:05:00.250+01:00`. Strict: the whole string, valid fields, years 1970…9999.
enum ISO8601Date {
    static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        var index = 0
        func digits(_ count: Int) -> Int? {
            guard index + count <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ character: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == character else { return false }
            index += 1
            return true
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2), expect(UInt8(ascii: "-")),
              let day = digits(2), index < bytes.count, bytes[index] == UInt8(ascii: "T") || bytes[index] == UInt8(ascii: "t") else { return nil }
        index += 1
        guard let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2), expect(UInt8(ascii: ":")),
              let second = digits(2) else { return nil }
        var fraction = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            var count = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                if count < 9 { fraction += Double(bytes[index] - 0x30) * scale }
                scale /= 10
                count += 1
                index += 1
            }
            guard count > 0 else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offset = 0
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            guard let hours = digits(2), expect(UInt8(ascii: ":")), let minutes = digits(2), hours <= 23, minutes <= 59 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        default:
            return nil
        }
        guard index == bytes.count, (1970...9999).contains(year), (1...12).contains(month), hour <= 23, minute <= 59, second <= 60 else {
            return nil
        }
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[month - 1]).contains(day) else { return nil }
        // Days from the civil date (Howard Hinnant's algorithm).
        let y = month <= 2 ? year - 1 : year
        let era = y / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }
}
