import DateTime
import Foundation
import TerminalUI
import Testing
import WidgetCore
import Widgets

/// Seconds since 1970 of a UTC date and time.
private func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int = 0) -> Date {
    Date(timeIntervalSince1970: TimeInterval(CivilTime.days(year: y, month: mo, day: d) * 86_400 + Int64(h * 3600 + mi * 60 + s)))
}

private let context = TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5))

@Suite("Clock widget")
struct ClockTests {
    @Test("Berlin springs forward from 01:59:59 CET to 03:00:00 CEST")
    func berlinSpring() throws {
        let zone = try ZoneInfo.load("Europe/Berlin")
        let style = ClockStyle(seconds: true)
        let before = ClockEntry(date: utc(2026, 3, 29, 0, 59, 59), zone: zone, style: style)
        let after = ClockEntry(date: utc(2026, 3, 29, 1, 0, 0), zone: zone, style: style)
        #expect((before.time, before.zone) == ("01:59:59", "CET"))
        #expect((after.time, after.zone) == ("03:00:00", "CEST"))
    }

    @Test("New York falls back: 1:59 EDT is followed by 1:00 EST, an entry at the change")
    func newYorkFall() throws {
        let zone = try ZoneInfo.load("America/New_York")
        let provider = ClockProvider(zone: zone, style: ClockStyle(hour24: false), now: { utc(2026, 11, 1, 5, 30) })
        let entries = provider.entries(from: utc(2026, 11, 1, 5, 30))
        let labels = entries.map { "\($0.time) \($0.zone)" }
        #expect(labels[0] == "1:30 AM EDT")
        #expect(entries[1].date == utc(2026, 11, 1, 6, 0))
        #expect(labels[1] == "1:00 AM EST")
        // The face drawn a second before the change, in the first entry's offset.
        let face = DateText.clock([.hour12, .literal(":"), .minute], utcOffset: try #require(entries[0].utcOffset))
        #expect(face.text(at: utc(2026, 11, 1, 5, 59, 59)) == "1:59")
    }

    @Test("dates past the zone file's last transition follow its POSIX rule")
    func posixRule() throws {
        let zone = try ZoneInfo.load("Europe/Berlin")
        #expect(zone.offset(at: utc(2050, 7, 1, 12, 0)).abbreviation == "CEST")
        #expect(zone.offset(at: utc(2050, 12, 1, 12, 0)).abbreviation == "CET")
        #expect(zone.offset(at: utc(2050, 3, 27, 0, 59)).seconds == 3600)
        #expect(zone.offset(at: utc(2050, 3, 27, 1, 0)).seconds == 7200, "last Sunday of March 2050 is the 27th")
        let sydney = try ZoneInfo.load("Australia/Sydney")
        #expect(sydney.offset(at: utc(2050, 1, 1, 0, 0)).abbreviation == "AEDT", "a southern-hemisphere rule wraps the year")
        #expect(sydney.offset(at: utc(2050, 7, 1, 0, 0)).abbreviation == "AEST")
    }

    @Test("unknown and unsafe zone names are refused with a clear message")
    func badZones() {
        #expect(throws: ZoneInfo.LoadError.notFound("Mars/Olympus")) { try ZoneInfo.load("Mars/Olympus") }
        #expect(throws: ZoneInfo.LoadError.invalidName("../../etc/passwd")) { try ZoneInfo.load("../../etc/passwd") }
        #expect(ZoneInfo.LoadError.notFound("X/Y").description.contains("unknown time zone 'X/Y'"))
    }

    @Test("seconds on: one timeline a day with one entry, not an entry a second; the time is a face drawn at the frame")
    func secondsTimeline() async throws {
        let now = utc(2026, 11, 30, 5, 0, 7) + 0.4
        let provider = ClockProvider(zone: .utc, style: ClockStyle(seconds: true), now: { now })
        let timeline = try await provider.timeline(in: context)
        #expect(timeline.entries.count == 1)
        #expect(timeline.entries.first?.date == utc(2026, 11, 30, 5, 0, 7))
        #expect(timeline.entries.first?.time == "05:00:07")
        #expect(timeline.policy == .after(now + 86_400))
    }

    @Test("a day with a DST change: O(1) entries, one at the change, each with its offset")
    func dstDay() throws {
        let zone = try ZoneInfo.load("Europe/Berlin")
        let provider = ClockProvider(zone: zone, style: ClockStyle(seconds: true), now: { utc(2026, 3, 28, 12, 0) })
        let entries = provider.entries(from: utc(2026, 3, 28, 12, 0))
        #expect(entries.map(\.date) == [utc(2026, 3, 28, 12, 0), utc(2026, 3, 29, 1, 0)])
        #expect(entries.map(\.zone) == ["CET", "CEST"])
        #expect(entries.map(\.utcOffset) == [3600, 7200])
        let twelve = ClockProvider(zone: zone, style: ClockStyle(hour24: false), now: { utc(2026, 3, 28, 12, 0) })
        #expect(twelve.entries(from: utc(2026, 3, 28, 12, 0)).count == 25, "12-hour: one an hour (the digits' count changes at 1 and 10)")
    }

    @Test("a timeline reaches past the host's minimum reload interval, so the clock never stands still")
    func coversMinimumInterval() async throws {
        let now = utc(2026, 11, 30, 5, 0, 0)
        let seconds = ClockProvider(zone: .utc, style: ClockStyle(seconds: true), now: { now })
        let long = TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5), minimumReloadInterval: 2 * 86_400)
        #expect(try await seconds.timeline(in: long).policy == .after(now + 2 * 86_400))
    }

    @Test("12-hour style shows noon and midnight as 12")
    func twelveHour() {
        let style = ClockStyle(hour24: false)
        #expect(ClockEntry(date: utc(2026, 1, 1, 0, 5), zone: .utc, style: style).time == "12:05 AM")
        #expect(ClockEntry(date: utc(2026, 1, 1, 12, 5), zone: .utc, style: style).time == "12:05 PM")
    }
}

@Suite("Clock widget: the tz database the host passes in")
struct ClockZoneRootTests {
    @Test("zones are read from the host's zoneinfo root, not a fixed path")
    func zoneinfoRoot() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("wh-zoneinfo-\(getpid())").path
        try FileManager.default.createDirectory(atPath: root + "/Test", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        let tokyo = try #require(FileManager.default.contents(atPath: "/usr/share/zoneinfo/Asia/Tokyo"))
        #expect(FileManager.default.createFile(atPath: root + "/Test/Tokyo", contents: tokyo))

        let fixed = utc(2026, 11, 30, 5, 0)
        let widget = ClockWidget.definition.widget(WidgetContext(now: { fixed }, zoneinfo: root))
        let provider = try widget.makeProvider(WidgetOptions(["timeZone": .string("Test/Tokyo")]))
        let entry = try #require(await provider.snapshot(in: context) as? ClockEntry)
        #expect(entry.zone.contains("JST"))
        // The system's database has no "Test/Tokyo": the root is really the one used.
        let system = ClockWidget.definition.widget(WidgetContext(now: { fixed }))
        #expect(throws: ZoneInfo.LoadError.notFound("Test/Tokyo")) {
            _ = try system.makeProvider(WidgetOptions(["timeZone": .string("Test/Tokyo")]))
        }
    }
}
