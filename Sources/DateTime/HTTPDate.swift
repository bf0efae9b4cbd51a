/// HTTP dates (RFC 9110's IMF-fixdate, `Sun, 06 Nov 1994 08:49:37 GMT`), as a server sends
/// them in `Retry-After`.
public enum HTTPDate {
    /// Seconds since 1970 of an IMF-fixdate, or nil.
    ///
    /// Strict about the shape (two-digit day, four-digit year, `hh:mm:ss`), so every field is
    /// small before any arithmetic: a year like 99999999999 is refused, not converted. The
    /// C library's `timegm` is avoided because its `tm` fields are `Int32`.
    public static func parse(_ text: String) -> Int64? {
        let parts = text.split(separator: " ")
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), parts[5] == "GMT",
              parts[1].count == 2, parts[3].count == 4,
              let day = digits(parts[1]), let year = digits(parts[3]),
              let month = CivilTime.monthNames.firstIndex(of: String(parts[2]))
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let h = digits(clock[0]), let m = digits(clock[1]), let s = digits(clock[2]),
              (1...31).contains(day), (0...23).contains(h), (0...59).contains(m), (0...60).contains(s)
        else { return nil }
        return CivilTime.days(year: year, month: month + 1, day: day) * 86_400 + Int64(h * 3600 + m * 60 + s)
    }

    /// The value of a short run of ASCII digits (at most 4 here), or nil.
    private static func digits(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 4, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return text.utf8.reduce(0) { $0 * 10 + Int($1 - 48) }
    }
}
