import DateTime
import Foundation
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

private let smallContext = TimelineProviderContext(family: .small, size: CellSize(columns: 18, rows: 9))

/// Seconds since 1970 of a UTC date and time.
private func utc(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int = 0) -> Date {
    Date(timeIntervalSince1970: TimeInterval(CivilTime.days(year: y, month: mo, day: d) * 86_400 + Int64(h * 3600 + mi * 60 + s)))
}

private func render(_ entry: CountdownEntry, family: WidgetFamily, width: Int, height: Int, placeholder: Bool = false) -> CellBuffer {
    var buffer = CellBuffer(width: max(0, width), height: max(0, height))
    let context = WidgetViewContext(family: family, size: CellSize(columns: width, rows: height), isPlaceholder: placeholder)
    CountdownWidget.view(entry, context: context).draw(into: &buffer, in: buffer.bounds, glyphs: .unicode, at: entry.date)
    return buffer
}

@Suite("Countdown widget")
struct CountdownTests {
    @Test("what is left changes each minute, then each second in the last, then done: drawn at the frame's time; entries only where its length changes; .atEnd")
    func minutesThenSeconds() async throws {
        let clock = ManualClock(now: testEpoch)
        let provider = CountdownProvider(target: at(185.5), label: "Launch", zone: .utc, now: { clock.now })
        let timeline = try await provider.timeline(in: smallContext)
        #expect(timeline.policy == .atEnd)
        // Entries: the start, "59s" (a character more than "1m"), "9s" (one less), done.
        let offsets = timeline.entries.map { $0.date.timeIntervalSince(testEpoch) }
        #expect(offsets == [0, 126.5, 176.5, 185.5])
        #expect(timeline.entries.map(\.remaining) == ["4m", "59s", "9s", "done"])
        #expect(timeline.entries.last?.isDone == true && timeline.entries.dropLast().allSatisfy { !$0.isDone })
        // The text the view draws changes where the old timeline had an entry each (whole
        // minutes before the end, rounded up; each second in the last minute), and only there.
        let left = DateText.countingDown(to: at(185.5))
        let lastMinute: [Double] = (1...59).reversed().map { 185.5 - Double($0) }
        var changes: [Double] = []
        var now = testEpoch
        while let next = left.nextChange(after: now) {
            changes.append(next.timeIntervalSince(testEpoch))
            now = next
        }
        #expect(changes == [5.5, 65.5, 125.5] + lastMinute + [185.5])
        #expect([0, 5.5, 65.5, 125.5, 126.5, 183.5, 184.5, 185.5].map { left.text(at: at($0)) }
            == ["4m", "3m", "2m", "1m", "59s", "2s", "1s", "done"])
        let first = TextBackend.lines(render(timeline.entries[0], family: .small, width: 20, height: 1))
        #expect(first == ["         4m"])
        var late = CellBuffer(width: 20, height: 1)
        CountdownWidget.view(timeline.entries[0], context: WidgetViewContext(family: .small, size: CellSize(columns: 20, rows: 1)))
            .draw(into: &late, in: late.bounds, glyphs: .unicode, at: at(65.5))
        #expect(TextBackend.lines(late) == ["         2m"], "the same entry, drawn a minute later")

        clock.advance(to: at(185.5))
        let after = try await provider.timeline(in: smallContext)
        #expect(after.entries.count == 1 && after.entries[0].remaining == "done" && after.policy == .never,
                "once done it never wakes again")
    }

    @Test("far away: an hour of minute entries per timeline, then .atEnd asks for the next hour")
    func farAway() async throws {
        let provider = CountdownProvider(target: at(3 * 86_400 + 30), label: "", zone: .utc, now: { testEpoch })
        let timeline = try await provider.timeline(in: smallContext)
        #expect(timeline.entries.count == 61 && timeline.policy == .atEnd)
        #expect(timeline.entries[0].remaining == "3d 0h 1m")
        #expect(timeline.entries[1].date == at(30) && timeline.entries[1].remaining == "3d 0h 0m")
        #expect(timeline.entries[60].remaining == "2d 23h 1m")
        let covering = provider.entries(from: testEpoch, covering: 7200)
        #expect(covering.count == 122, "a host that asks every two hours gets two hours of entries")
    }

    @Test("a date already past shows done at once, with one entry and .never")
    func pastAtStart() async throws {
        let provider = CountdownProvider(target: at(-10), label: "Gone", zone: .utc, now: { testEpoch })
        let timeline = try await provider.timeline(in: smallContext)
        #expect(timeline.entries.count == 1 && timeline.entries[0].isDone && timeline.policy == .never)
        #expect(text(render(timeline.entries[0], family: .small, width: 18, height: 5)).contains("done"))
    }

    @Test("`to` forms: ISO 8601 with Z or an offset, or local date and time read in the host's zone")
    func parsing() throws {
        #expect(CountdownTarget.parse("2026-12-31T23:59:00Z") == .absolute(utc(2026, 12, 31, 23, 59)))
        #expect(CountdownTarget.parse("2026-12-31T23:59:00+01:00") == .absolute(utc(2026, 12, 31, 22, 59)))
        #expect(CountdownTarget.parse("2026-12-31T23:59:30.25-0230") == .absolute(utc(2027, 1, 1, 2, 29, 30)))
        #expect(CountdownTarget.parse("2026-12-31T23:59") == .local(year: 2026, month: 12, day: 31, hour: 23, minute: 59, second: 0))
        #expect(CountdownTarget.parse("2028-02-29") == .local(year: 2028, month: 2, day: 29, hour: 0, minute: 0, second: 0))
        for bad in ["", "tomorrow", "2026-02-30T10:00", "2027-02-29", "2026-12-31T24:00", "2026-12-31T23:60", "2026-13-01",
                    "2026-12-31T23:59+25:00", "2026-12-31T23:59Zjunk", "2026-12-31 23:59", "12026-01-01", "0001-01-01",
                    "２０２６-12-31", "2026-12-31T23:59:00.", String(repeating: "9", count: 100)] {
            #expect(CountdownTarget.parse(bad) == nil, "\(bad.debugDescription) is refused")
        }
        let berlin = try ZoneInfo.load("Europe/Berlin")
        let local = try #require(CountdownTarget.parse("2026-12-31T23:59"))
        #expect(local.date(in: berlin) == utc(2026, 12, 31, 22, 59), "winter: CET, UTC+1")
        #expect(try #require(CountdownTarget.parse("2026-07-01T12:00")).date(in: berlin) == utc(2026, 7, 1, 10, 0), "summer: CEST")
    }

    @Test("a local `to` is read in the host's zone (TZ from the environment, via the zoneinfo root)")
    func localZoneFromEnvironment() async throws {
        let widget = CountdownWidget.configuration(context: WidgetContext(now: { utc(2026, 12, 31, 22, 0) },
                                                                          environment: ["TZ": "Europe/Berlin"]))
        let provider = try widget.makeProvider(["to": .string("2026-12-31T23:59")])
        let timeline = try await provider.timeline(in: TimelineProviderContext(family: .small, size: CellSize(columns: 18, rows: 9)))
        let first = try #require(timeline.entries.first as? CountdownEntry)
        #expect(first.remaining == "59m", "23:59 in Berlin is 22:59 UTC")
        #expect(first.target == "Thu 31 Dec 2026 23:59" && first.shortTarget == "31 Dec 23:59")
        #expect(throws: OptionError.self) { _ = try widget.makeProvider(["to": .string("soon")]) }
    }

    @Test("the local zone comes from the host's zoneinfo root (WidgetContext.zoneinfo)")
    func zoneinfoRoot() async throws {
        let root = makeTemporaryDirectory(prefix: "zoneinfo")
        defer { removeTree(root) }
        try FileManager.default.createDirectory(atPath: root + "/Test", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: ZoneInfo.defaultDirectory + "/Asia/Tokyo", toPath: root + "/Test/Home")
        let widget = CountdownWidget.definition.widget(WidgetContext(now: { utc(2026, 12, 31, 14, 0) }, environment: ["TZ": "Test/Home"],
                                                                     zoneinfo: root))
        let provider = try widget.makeProvider(["to": .string("2026-12-31T23:59"), "label": .string("Tokyo")])
        let first = try #require(try await provider.timeline(in: smallContext).entries.first as? CountdownEntry)
        #expect(first.remaining == "59m", "23:59 JST is 14:59 UTC")
        #expect(first.label == "Tokyo")
    }

    @Test("remaining text for any number of seconds, NaN and infinity included")
    func remainingText() {
        #expect(CountdownEntry.remainingText(.nan) == "done")
        #expect(CountdownEntry.remainingText(0) == "done")
        #expect(CountdownEntry.remainingText(0.2) == "1s")
        #expect(CountdownEntry.remainingText(60) == "1m")
        #expect(CountdownEntry.remainingText(3601) == "1h 1m")
        #expect(CountdownEntry.remainingText(.infinity).hasSuffix("m"))
    }

    @Test("frames: small and medium, running and done; placeholder; tiny rectangles never crash")
    func frames() {
        let running = CountdownEntry(date: testEpoch, label: "New Year", remaining: "12d 4h 5m", isDone: false,
                                     target: "Thu 31 Dec 2026 23:59", shortTarget: "31 Dec 23:59")
        var done = running
        done.remaining = "done"
        done.isDone = true
        expectSnapshot(text(render(running, family: .small, width: 24, height: 7)), named: "countdown-small-24x7")
        expectSnapshot(text(render(running, family: .small, width: 18, height: 9)), named: "countdown-small-18x9")
        expectSnapshot(text(render(done, family: .medium, width: 38, height: 9)), named: "countdown-medium-done-38x9")
        expectSnapshot(text(render(running, family: .medium, width: 38, height: 9, placeholder: true)), named: "countdown-medium-placeholder")
        for (width, height) in [(0, 0), (1, 1), (2, 1), (1, 3), (5, 2), (30, 1)] {
            var buffer = CellBuffer(width: width + 2, height: height + 2)
            let rect = Rect(x: 1, y: 1, width: width, height: height)
            let before = buffer
            CountdownWidget.view(running, context: WidgetViewContext(family: .small, size: CellSize(columns: width, rows: height)))
                .draw(into: &buffer, in: rect, glyphs: .unicode)
            for y in 0..<buffer.height {
                for x in 0..<buffer.width where !rect.contains(x: x, y: y) && buffer[x, y] != before[x, y] {
                    Issue.record("countdown \(width)x\(height) drew outside its rect at (\(x), \(y))")
                }
            }
        }
    }
}
