import FoundationEssentials

/// A date and time as ISO 8601 text writes it (`2026-11-30T23:05:00.250+01:00`), read by the
/// one parser of the host: extension messages, `snapshot --at` and a countdown's `to` differ
/// only in what they accept (`Syntax`), never in how a field is read.
///
/// Strict: the whole text, real dates only (`2026-02-30` and `24:00` are refused), every field
/// bounded before any arithmetic, so a value from a file or another process gives nil or a
/// date, never a trap.
///
/// ```swift
/// let at = ISO8601DateTime.parse("2026-11-30T05:00:00Z", .message)?.date
/// ```
public struct ISO8601DateTime: Equatable, Sendable {
    public var year: Int
    public var month: Int
    public var day: Int
    public var hour = 0
    public var minute = 0
    public var second = 0
    /// The fraction of the second, `0..<1` (the first 9 digits count).
    public var fraction = 0.0
    /// Seconds east of UTC (`Z`: 0); nil when the text named no zone (a local wall time).
    public var offset: Int?

    public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0,
                fraction: Double = 0, offset: Int? = nil) {
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second, self.fraction, self.offset) = (hour, minute, second, fraction, offset)
    }

    /// Seconds since 1970 of the wall time read as UTC (whole seconds, the fraction left out).
    public var wallSeconds: Int64 {
        CivilTime.days(year: year, month: month, day: day) * 86_400 + Int64(hour * 3600 + minute * 60 + second)
    }

    /// The moment, when the text named its zone; nil for a local wall time.
    public var date: Date? {
        offset.map { Date(timeIntervalSince1970: TimeInterval(wallSeconds - Int64($0)) + fraction) }
    }

    /// What one use of the format accepts.
    public struct Syntax: Sendable {
        /// Years accepted (always four digits).
        public var years: ClosedRange<Int>
        /// Lengths of the whole text accepted, in bytes.
        public var lengths: ClosedRange<Int> = 0...64
        /// `YYYY-MM-DD` alone (a local midnight).
        public var dateAlone = false
        /// `:SS` must follow `HH:MM`.
        public var secondsRequired = false
        /// `t` and `z` as well as `T` and `Z`.
        public var lowercaseLetters = false
        /// `,` as well as `.` before the fraction.
        public var commaFraction = false
        /// Digits a fraction may have (more: not this form).
        public var maximumFractionDigits = Int.max
        /// A zone (`Z` or an offset) must end the text; else a local time is accepted.
        public var zoneRequired = true
        /// `±HH:MM` only; else `±HHMM` too.
        public var offsetColonRequired = false
        /// The largest offset's hours.
        public var maximumOffsetHours = 23
        /// A second of 60 (a leap second, counted into the next minute).
        public var leapSecond = false

        public init(years: ClosedRange<Int>) { self.years = years }

        /// Dates in extension messages: seconds and a zone required, `±HH:MM`, years
        /// 1970…9999, 20…40 bytes, any number of fraction digits.
        public static let message: Syntax = {
            var syntax = Syntax(years: 1970...9999)
            syntax.lengths = 20...40
            syntax.secondsRequired = true
            syntax.lowercaseLetters = true
            syntax.offsetColonRequired = true
            syntax.leapSecond = true
            return syntax
        }()

        /// `snapshot --at`: a zone required (a time without one would depend on the machine),
        /// seconds optional, at most 9 fraction digits.
        public static let commandLine: Syntax = {
            var syntax = Syntax(years: 1...9999)
            syntax.maximumFractionDigits = 9
            return syntax
        }()

        /// A countdown's `to`: a date alone or a local time are fine (read in the host's zone),
        /// offsets up to ±18 h, years 1900…9999, at most 40 bytes.
        public static let countdown: Syntax = {
            var syntax = Syntax(years: 1900...9999)
            syntax.lengths = 0...40
            syntax.dateAlone = true
            syntax.lowercaseLetters = true
            syntax.commaFraction = true
            syntax.zoneRequired = false
            syntax.maximumOffsetHours = 18
            return syntax
        }()
    }

    /// The date and time `text` writes in `syntax`, or nil when it is not one.
    public static func parse(_ text: String, _ syntax: Syntax) -> ISO8601DateTime? {
        var reader = Reader(bytes: Array(text.utf8), lowercase: syntax.lowercaseLetters)
        guard syntax.lengths.contains(reader.bytes.count),
              let year = reader.number(4), reader.take("-"), let month = reader.number(2), reader.take("-"),
              let day = reader.number(2), syntax.years.contains(year), (1...12).contains(month),
              (1...CivilTime.daysIn(month: month, year: year)).contains(day) else { return nil }
        var parsed = ISO8601DateTime(year: year, month: month, day: day)
        if reader.atEnd { return syntax.dateAlone ? parsed : nil }
        guard reader.take("T"), let hour = reader.number(2), reader.take(":"), let minute = reader.number(2),
              hour <= 23, minute <= 59 else { return nil }
        (parsed.hour, parsed.minute) = (hour, minute)
        if reader.take(":") {
            guard let second = reader.number(2), second <= (syntax.leapSecond ? 60 : 59) else { return nil }
            parsed.second = second
            if reader.take(".") || (syntax.commaFraction && reader.take(",")) {
                guard let fraction = reader.fraction(maximumDigits: syntax.maximumFractionDigits) else { return nil }
                parsed.fraction = fraction
            }
        } else if syntax.secondsRequired {
            return nil
        }
        if reader.atEnd { return syntax.zoneRequired ? nil : parsed }
        if reader.take("Z") {
            parsed.offset = 0
        } else {
            let sign: Int
            if reader.take("+") { sign = 1 } else if reader.take("-") { sign = -1 } else { return nil }
            guard let hours = reader.number(2), reader.take(":") || !syntax.offsetColonRequired,
                  let minutes = reader.number(2), hours <= syntax.maximumOffsetHours, minutes <= 59 else { return nil }
            parsed.offset = sign * (hours * 3600 + minutes * 60)
        }
        return reader.atEnd ? parsed : nil
    }

    /// A cursor over ASCII bytes.
    private struct Reader {
        let bytes: [UInt8]
        let lowercase: Bool
        var index = 0

        var atEnd: Bool { index == bytes.count }

        static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        /// Exactly `width` digits.
        mutating func number(_ width: Int) -> Int? {
            guard index + width <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[index..<index + width] {
                guard Self.isDigit(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            index += width
            return value
        }

        /// `character` (a letter also in lower case, when allowed).
        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count else { return false }
            let byte = bytes[index]
            let wanted = UInt8(ascii: character)
            let lower = wanted >= UInt8(ascii: "A") && wanted <= UInt8(ascii: "Z") ? wanted + 32 : wanted
            guard byte == wanted || (lowercase && byte == lower) else { return false }
            index += 1
            return true
        }

        /// One digit or more (at most `maximumDigits`) as a fraction; the first 9 count.
        mutating func fraction(maximumDigits: Int) -> Double? {
            var value = 0.0, scale = 0.1, digits = 0
            while index < bytes.count, Self.isDigit(bytes[index]), digits < maximumDigits {
                if digits < 9 { value += Double(bytes[index] - UInt8(ascii: "0")) * scale }
                scale /= 10
                digits += 1
                index += 1
            }
            return digits > 0 ? value : nil
        }
    }
}
