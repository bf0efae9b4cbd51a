import DateTime
import FoundationEssentials
import Testing

/// 2026-11-30T05:00:00Z.
private let epoch = Date(timeIntervalSince1970: 1_796_014_800)

private func parsed(_ text: String, _ syntax: ISO8601DateTime.Syntax) -> Date? {
    ISO8601DateTime.parse(text, syntax)?.date
}

@Suite("Dates and times: the civil calendar, ISO 8601 in its three forms, HTTP dates")
struct DateTimeTests {
    @Test("civil time matches known dates, weekdays included, before 1970 too")
    func civil() {
        let t = CivilTime(unixSeconds: 1_796_014_800, offset: 0)
        #expect((t.year, t.month, t.day, t.hour, t.weekday) == (2026, 11, 30, 5, 1))
        let leap = CivilTime(unixSeconds: CivilTime.days(year: 2028, month: 2, day: 29) * 86_400 + 86_399, offset: 0)
        #expect((leap.month, leap.day, leap.second) == (2, 29, 59))
        let before1970 = CivilTime(unixSeconds: -1, offset: 0)
        #expect((before1970.year, before1970.month, before1970.day, before1970.hour, before1970.weekday) == (1969, 12, 31, 23, 3))
        #expect(CivilTime(unixSeconds: 0, offset: 3600).hour == 1)
    }

    @Test("days from a civil date and back agree for every day of 1600…2400")
    func roundTrip() {
        var days = CivilTime.days(year: 1600, month: 1, day: 1)
        for year in 1600...2400 {
            for month in 1...12 {
                for day in 1...CivilTime.daysIn(month: month, year: year) {
                    #expect(CivilTime.days(year: year, month: month, day: day) == days)
                    let back = CivilTime.civil(fromDays: days)
                    if back != (year, month, day) { Issue.record("\(year)-\(month)-\(day) came back as \(back)"); return }
                    days += 1
                }
            }
        }
        #expect(CivilTime.isLeap(2000) && CivilTime.isLeap(2028) && !CivilTime.isLeap(1900) && !CivilTime.isLeap(2026))
    }

    @Test("every form reads the same fields the same way: zones, offsets, fractions")
    func sharedFields() {
        for syntax in [ISO8601DateTime.Syntax.message, .commandLine, .countdown] {
            #expect(parsed("2026-11-30T05:00:00Z", syntax) == epoch)
            #expect(parsed("2026-11-30T06:00:00+01:00", syntax) == epoch)
            #expect(parsed("2026-11-30T00:30:00-04:30", syntax) == epoch)
            #expect(parsed("2026-11-30T05:00:00.250Z", syntax) == epoch.addingTimeInterval(0.25))
            for bad in ["", "2026-02-30T05:00:00Z", "2025-02-29T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-30T24:00:00Z",
                        "2026-11-30T05:60:00Z", "2026-11-30 05:00:00Z", "2026-11-30T05:00:00.Z", "2026-11-30T05:00:00Zjunk",
                        "12026-11-30T05:00:00Z", "２０２６-11-30T05:00:00Z", "2026-11-30T05:00:00+24:00"] {
                #expect(ISO8601DateTime.parse(bad, syntax) == nil, "\(bad.debugDescription)")
            }
        }
    }

    @Test("extension messages: seconds and a zone required, ±HH:MM, t and z, a leap second, years 1970…9999")
    func messageForm() {
        #expect(parsed("2026-11-30t05:00:00z", .message) == epoch)
        let fine = parsed("2026-11-30T05:00:00.1234567891234Z", .message)?.timeIntervalSince(epoch) ?? -1
        #expect(abs(fine - 0.123456789) < 1e-6, "the first 9 digits count: \(fine)")
        #expect(parsed("2026-11-30T04:59:60Z", .message) == epoch, "a leap second counts into the next minute")
        for bad in ["2026-11-30T05:00Z", "2026-11-30T05:00:00", "2026-11-30T01:00:00-0400", "1969-12-31T23:59:59Z",
                    "2026-11-30T05:00:00.000000000000000000000000Z"] {
            #expect(ISO8601DateTime.parse(bad, .message) == nil, "\(bad)")
        }
    }

    @Test("snapshot --at: seconds optional, ±HHMM too, at most 9 fraction digits, upper case only, no leap second")
    func commandLineForm() {
        #expect(parsed("2026-11-30T05:00Z", .commandLine) == epoch)
        #expect(parsed("2026-11-30T00:30:00-0430", .commandLine) == epoch)
        #expect(parsed("0001-01-01T00:00:00Z", .commandLine) != nil)
        for bad in ["2026-11-30T05:00:00", "2026-11-30t05:00:00Z", "2026-11-30T05:00:00z", "2026-11-30T04:59:60Z",
                    "2026-11-30T05:00:00.1234567891Z", "2026-11-30"] {
            #expect(ISO8601DateTime.parse(bad, .commandLine) == nil, "\(bad)")
        }
    }

    @Test("a countdown's target: a date alone or a local time (no zone), a comma fraction, offsets to ±18 h, years 1900…")
    func countdownForm() throws {
        let local = try #require(ISO8601DateTime.parse("2026-12-31T23:59", .countdown))
        #expect(local == ISO8601DateTime(year: 2026, month: 12, day: 31, hour: 23, minute: 59) && local.date == nil)
        #expect(ISO8601DateTime.parse("2028-02-29", .countdown) == ISO8601DateTime(year: 2028, month: 2, day: 29))
        #expect(parsed("2026-11-30T05:00:00,5z", .countdown) == epoch.addingTimeInterval(0.5))
        #expect(parsed("2026-11-30T23:00:00+18:00", .countdown) != nil)
        for bad in ["2026-11-30T23:00:00+19:00", "0001-01-01", "1899-12-31", "2026-12-31T23:59:00.", String(repeating: "9", count: 100)] {
            #expect(ISO8601DateTime.parse(bad, .countdown) == nil, "\(bad.debugDescription)")
        }
    }

    @Test("HTTP dates: IMF-fixdate only, every field bounded before any arithmetic")
    func httpDates() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Thu, 31 Dec 2099 23:59:60 GMT") == CivilTime.days(year: 2100, month: 1, day: 1) * 86_400)
        for bad in ["Sun, 06 Nov 99999999999 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
                    "Sun, 6 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Foo 1994 08:49:37 GMT",
                    "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 24:00:00 GMT", ""] {
            #expect(HTTPDate.parse(bad) == nil, "\(bad)")
        }
    }
}
