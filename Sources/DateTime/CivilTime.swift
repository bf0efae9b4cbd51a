/// A wall-clock date and time, computed from seconds since 1970 and a UTC offset.
///
/// Pure arithmetic (proleptic Gregorian calendar), so it needs neither ICU nor the C library's
/// global time-zone state.
public struct CivilTime: Equatable, Sendable {
    public var year: Int
    public var month: Int  // 1...12
    public var day: Int  // 1...31
    public var hour: Int
    public var minute: Int
    public var second: Int
    /// 0 = Sunday ... 6 = Saturday.
    public var weekday: Int

    /// The civil time at `seconds` since 1970-01-01T00:00:00Z, shifted by `offset` seconds.
    public init(unixSeconds seconds: Int64, offset: Int) {
        let local = seconds + Int64(offset)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = Int(local - days * 86_400)
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
        weekday = Int(((days % 7) + 11) % 7)  // 1970-01-01 was a Thursday (4)
        (year, month, day) = Self.civil(fromDays: days)
    }

    /// Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm).
    public static func days(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let m = Int64(month)
        let doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The civil date of a day count since 1970-01-01 (the inverse of `days`).
    public static func civil(fromDays z0: Int64) -> (year: Int, month: Int, day: Int) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        return (Int(y), Int(m), Int(d))
    }

    /// Whether `year` has a 29 February.
    public static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    /// The days of `month` (1…12) in `year`.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public static let weekdayNames = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    public static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
}
