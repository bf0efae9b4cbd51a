import DateTime
/// A POSIX TZ rule such as `CET-1CEST,M3.5.0,M10.5.0/3`: the offsets of a zone after the last
/// transition in its TZif file. Only the `Mm.w.d` date form is used by the tz database today;
/// other forms fall back to standard time.
struct PosixRule: Sendable, Equatable {
    struct Change: Sendable, Equatable {
        var month: Int, week: Int, weekday: Int
        var time: Int  // seconds after local midnight
    }

    var standard: ZoneInfo.Offset
    var daylight: ZoneInfo.Offset?
    var start: Change?
    var end: Change?

    init?(_ text: String) {
        var s = Substring(text)
        guard let stdName = Self.name(&s), let stdOffset = Self.offset(&s) else { return nil }
        // POSIX offsets are west-positive; ours are east-positive.
        standard = ZoneInfo.Offset(seconds: -stdOffset, abbreviation: stdName, isDST: false)
        guard !s.isEmpty else { return }
        guard let dstName = Self.name(&s) else { return nil }
        var dstOffset = stdOffset - 3600
        if let first = s.first, first != "," { dstOffset = Self.offset(&s) ?? dstOffset }
        daylight = ZoneInfo.Offset(seconds: -dstOffset, abbreviation: dstName, isDST: true)
        guard s.first == "," else { return }
        s.removeFirst()
        let parts = s.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return }
        start = Self.change(parts[0])
        end = Self.change(parts[1])
    }

    func offset(at t: Int64) -> ZoneInfo.Offset {
        guard let daylight, let start, let end else { return standard }
        let year = CivilTime(unixSeconds: t, offset: standard.seconds).year
        // Start is given in standard local time, end in daylight local time.
        let dstStart = Self.instant(start, year: year) - Int64(standard.seconds)
        let dstEnd = Self.instant(end, year: year) - Int64(daylight.seconds)
        let inDST = dstStart < dstEnd ? (t >= dstStart && t < dstEnd) : !(t >= dstEnd && t < dstStart)
        return inDST ? daylight : standard
    }

    /// Local seconds since 1970 of the rule's change in `year`.
    private static func instant(_ c: Change, year: Int) -> Int64 {
        let first = CivilTime.days(year: year, month: c.month, day: 1)
        let firstWeekday = Int(((first % 7) + 11) % 7)
        var day = 1 + (c.weekday - firstWeekday + 7) % 7 + (c.week - 1) * 7
        let monthLength = Int(CivilTime.days(year: c.month == 12 ? year + 1 : year, month: c.month == 12 ? 1 : c.month + 1, day: 1) - first)
        while day > monthLength { day -= 7 }
        return (first + Int64(day - 1)) * 86_400 + Int64(c.time)
    }

    private static func name(_ s: inout Substring) -> String? {
        if s.first == "<" {
            guard let close = s.firstIndex(of: ">") else { return nil }
            let n = String(s[s.index(after: s.startIndex)..<close])
            s = s[s.index(after: close)...]
            return n
        }
        let n = s.prefix { $0.isLetter }
        guard n.count >= 3 else { return nil }
        s = s.dropFirst(n.count)
        return String(n)
    }

    /// `[+-]hh[:mm[:ss]]` in seconds; nil unless hours are 0...167 and minutes and seconds
    /// 0...59 (RFC 8536's extension of POSIX), so a hostile footer cannot overflow the sum.
    private static func offset(_ s: inout Substring) -> Int? {
        var sign = 1
        if s.first == "+" || s.first == "-" {
            sign = s.first == "-" ? -1 : 1
            s.removeFirst()
        }
        var fields: [Int] = []
        while fields.count < 3 {
            let digits = s.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty else { break }
            guard digits.count <= 3, let v = Int(digits), v <= (fields.isEmpty ? 167 : 59) else { return nil }
            fields.append(v)
            s = s.dropFirst(digits.count)
            guard s.first == ":" else { break }
            s.removeFirst()
        }
        guard !fields.isEmpty else { return nil }
        let secs = fields[0] * 3600 + (fields.count > 1 ? fields[1] * 60 : 0) + (fields.count > 2 ? fields[2] : 0)
        return sign * secs
    }

    private static func change(_ text: Substring) -> Change? {
        guard text.first == "M" else { return nil }
        let halves = text.dropFirst().split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let mwd = halves[0].split(separator: ".", omittingEmptySubsequences: false).map { $0.count <= 2 ? Int($0) : nil }
        guard mwd.count == 3, let month = mwd[0], let week = mwd[1], let weekday = mwd[2] else { return nil }
        guard (1...12).contains(month), (1...5).contains(week), (0...6).contains(weekday) else { return nil }
        var time = 7200
        if halves.count == 2 {
            var t = halves[1]
            time = offset(&t) ?? 7200
        }
        return Change(month: month, week: week, weekday: weekday, time: time)
    }
}
