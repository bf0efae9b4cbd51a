import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
import Widgets
@testable import WidgetHost

/// 2026-11-30T10:00:00Z
private let start = Date(timeIntervalSince1970: 1_796_032_800)
private let environment = HostEnvironment(variables: ["TZ": "UTC", "LANG": "C.UTF-8"], homeDirectory: "/nonexistent")

/// Two pages: a note, and a seconds clock on a grid with another note.
private let twoPages = """
    {"rotateSeconds": 20, "pages": [
      {"title": "Notes", "panels": [{"kind": "text", "family": "medium", "title": "Note", "options": {"text": "page one"}}]},
      {"title": "Time", "grid": ["clock note"], "columns": [2, 1], "panels": [
        {"kind": "clock", "title": "Seconds", "area": "clock", "options": {"timeZone": "UTC", "seconds": true}},
        {"kind": "text", "title": "Other", "area": "note", "options": {"text": "page two"}}]}]}
    """

@MainActor
private func openPages(_ directory: TemporaryDirectory) async throws -> HeadlessDashboard {
    let path = directory.write("dashboard.json", twoPages)
    let pilot = try HeadlessDashboard.open(catalog: .builtin(), configPath: path, size: TerminalSize(columns: 80, rows: 12),
                                           now: start, environment: environment).get()
    _ = await pilot.settle(within: 10)
    return pilot
}

@Suite("Pages", .serialized)
@MainActor
struct PagesPilotTests {
    @Test("1 and 2 switch pages in one frame; the status bar shows the tabs; the grid's weights share the width")
    func switchByKey() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPages(directory)
        defer { pilot.close() }
        #expect(pilot.lines[0].hasPrefix("┌ Note"))
        #expect(pilot.lines.last?.contains("1 Notes  2 Time") == true)
        _ = pilot.takeFrameRequests()
        pilot.press(.character("2"))
        #expect(pilot.takeFrameRequests() == 1, "one frame for the switch")
        #expect(pilot.lines[0].hasPrefix("┌ Seconds") && pilot.lines[0].contains("┌ Other"))
        #expect(pilot.lines[0].hasSuffix("┌ Other ──────────────────┐"), "columns [2, 1]: the note has a third of 80")
        #expect(pilot.lines.contains { $0.contains("Mon 30 Nov 2026") }, "the clock's data is current when shown")
        pilot.press(.character("1"))
        #expect(pilot.lines[0].hasPrefix("┌ Note"))
        pilot.press(.character("7"))
        #expect(pilot.lines[0].hasPrefix("┌ Note"), "no page 7: nothing happens")
    }

    @Test("a seconds clock on a hidden page wakes nothing: the next wake-up is the visible page's (the status bar's minute)")
    func hiddenPageSleeps() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPages(directory)
        defer { pilot.close() }
        // Page 1 shown: only the minute and the rotation (20 s) are armed, not the next second.
        #expect(pilot.clock.nextScheduledDate == start + 20)
        pilot.press(.character("2"))
        await pilot.settleProviders()
        #expect(pilot.clock.nextScheduledDate == start + 1, "shown, the seconds clock wakes every second")
        pilot.press(.character("1"))
        #expect(pilot.clock.nextScheduledDate == start + 20)
    }

    @Test("rotateSeconds cycles the pages; any key holds the rotation for as long")
    func rotation() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPages(directory)
        defer { pilot.close() }
        pilot.advance(by: 20)
        #expect(pilot.lines[0].hasPrefix("┌ Seconds"))
        pilot.advance(by: 10)
        pilot.press(.tab)  // at 30 s: the next turn is at 50 s, not 40 s
        pilot.advance(by: 15)
        #expect(pilot.lines[0].hasPrefix("┌ Seconds"))
        pilot.advance(by: 5)
        #expect(pilot.lines[0].hasPrefix("┌ Note"))
    }
}

@Suite("The mouse", .serialized)
@MainActor
struct MousePilotTests {
    @Test("a click on a tab switches the page; on a panel focuses it; two within 0.4 s zoom it, the wheel scrolls it; a second apart is two clicks")
    func clicks() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let pilot = try await openPages(directory)
        defer { pilot.close() }
        let bar = pilot.lines.count - 1
        let tab = try #require(pilot.lines[bar].firstRange(of: "2 Time")).lowerBound.utf16Offset(in: pilot.lines[bar])
        pilot.press(.mouse(MouseEvent(.press, column: tab + 1, row: bar)))
        #expect(pilot.lines[0].hasPrefix("┌ Seconds"))
        pilot.press(.mouse(MouseEvent(.press, column: 70, row: 3)))
        #expect(pilot.focus == 2 && !pilot.isZoomed, "the click focused Other")
        pilot.advance(by: 1)
        pilot.press(.mouse(MouseEvent(.press, column: 70, row: 3)))
        #expect(!pilot.isZoomed, "a second later: another single click")
        pilot.press(.mouse(MouseEvent(.press, column: 70, row: 3)))
        #expect(pilot.isZoomed && pilot.lines[0].hasPrefix("┌ Other"), "at once: a double click zooms")
        pilot.press(.mouse(MouseEvent(.press, column: 5, row: 5)))
        pilot.press(.mouse(MouseEvent(.press, column: 5, row: 5)))
        #expect(!pilot.isZoomed, "a double click on the zoomed panel goes back")
        pilot.press(.mouse(MouseEvent(.wheelDown, column: 5, row: 5)))
        #expect(!pilot.isZoomed && pilot.focus == 2, "the wheel outside zoom changes nothing")
    }
}
