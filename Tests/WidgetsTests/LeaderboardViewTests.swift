import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// The large panel's content area in the default dashboard: the box the layout gives it, less
/// the border.
private let large80x24 = Box.inner(of: Rect(x: 0, y: 0, width: 54, height: 23))
private let large100x30 = Box.inner(of: Rect(x: 0, y: 0, width: 65, height: 29))

/// The roster fetched 20 s before the entry's date, with the board before it for ▲/▼.
private let changedEntry = LeaderboardEntry(date: at(80), board: laterBoard, previous: rosterBoard, fetchedAt: at(60))
private let freshEntry = LeaderboardEntry(date: at(20), board: rosterBoard, fetchedAt: at(0))

@Suite("Leaderboard views")
struct LeaderboardViewTests {
    @Test("the default dashboard's large panel is 52x21 at 80x24 and 63x27 at 100x30")
    func defaultSizes() {
        #expect((large80x24.width, large80x24.height) == (52, 21))
        #expect((large100x30.width, large100x30.height) == (63, 27))
    }

    @Test("large at 80x24 shows all six heroes ranked, with type, time to full health and the footer")
    func large80x24Frame() {
        let frame = render(freshEntry, family: .large, width: large80x24.width, height: large80x24.height)
        expectSnapshot(text(frame), named: "leaderboard-large-52x21")
        let lines = TextBackend.lines(frame)
        for name in ["Octo", "Spouty", "Cake", "Mr. Spook", "Egghead", "Power Panda"] {
            #expect(lines.contains { $0.contains(name) }, "\(name) is shown")
        }
        #expect(lines.last == "updated <1m ago")
    }

    @Test("large at 100x30 shows the same table, wider")
    func large100x30Frame() {
        let frame = render(freshEntry, family: .large, width: large100x30.width, height: large100x30.height)
        expectSnapshot(text(frame), named: "leaderboard-large-63x27")
    }

    @Test("with the previous board: ▲/▼ for rank moves, +exp and -exp in the Δ column")
    func changes() {
        let frame = render(changedEntry, family: .large, width: large80x24.width, height: large80x24.height)
        expectSnapshot(text(frame), named: "leaderboard-large-changes")
        let lines = TextBackend.lines(frame)
        let panda = lines.first { $0.contains("Power Panda") } ?? ""
        #expect(panda.hasPrefix("3▲") && panda.contains("15,600") && panda.contains("+15k"))
        let cake = lines.first { $0.contains("Cake") } ?? ""
        #expect(cake.hasPrefix("5▼") && !cake.contains("+"))
        let spook = lines.first { $0.contains("Mr. Spook") } ?? ""
        #expect(spook.hasPrefix("4 ") && spook.contains("+860"), "same rank: no arrow, but the exp gain")
        let egghead = lines.first { $0.contains("Egghead") } ?? ""
        #expect(egghead.hasPrefix("6▼") && egghead.contains("-40"))
        let octo = lines.first { $0.contains("Octo") } ?? ""
        #expect(octo.hasPrefix("1 ") && !octo.contains("+"))
    }

    @Test("extraLarge shows the table across the whole width")
    func extraLargeFrame() {
        let frame = render(changedEntry, family: .extraLarge, width: 98, height: 14)
        expectSnapshot(text(frame), named: "leaderboard-extraLarge-98x14")
    }

    @Test("medium shows the top three, without the Δ and health columns")
    func mediumFrame() {
        let frame = render(changedEntry, family: .medium, width: 50, height: 7)
        expectSnapshot(text(frame), named: "leaderboard-medium-50x7")
        let lines = TextBackend.lines(frame)
        #expect(lines.contains { $0.contains("Octo") } && lines.contains { $0.contains("Power Panda") })
        #expect(!lines.contains { $0.contains("Mr. Spook") || $0.contains("Cake") }, "only the top three")
    }

    @Test("small shows the leader with level, exp and a health bar")
    func smallFrame() {
        let frame = render(freshEntry, family: .small, width: 24, height: 7)
        expectSnapshot(text(frame), named: "leaderboard-small-24x7")
        let lines = TextBackend.lines(frame)
        #expect(lines.contains { $0.contains("🐙 Octo") } && lines.contains { $0.contains("86,463 exp") })
        #expect(!lines.contains { $0.contains("Spouty") })
    }

    @Test("footer: 'updated <1m ago', then minutes; with unreadable heroes it says how many")
    func footerAge() {
        func footer(_ entry: LeaderboardEntry) -> String? { TextBackend.lines(render(entry, family: .large, width: 52, height: 21)).last }
        #expect(footer(LeaderboardEntry(date: at(59), board: rosterBoard, fetchedAt: at(0))) == "updated <1m ago")
        #expect(footer(LeaderboardEntry(date: at(60), board: rosterBoard, fetchedAt: at(0))) == "updated 1m ago")
        #expect(footer(LeaderboardEntry(date: at(3 * 3600 + 5 * 60 + 59), board: rosterBoard, fetchedAt: at(0)))
                == "updated 3h 5m ago")
        #expect(footer(LeaderboardEntry(date: at(10), board: rosterBoard, fetchedAt: at(0), skipped: 2))
                == "updated <1m ago · 2 unreadable")
    }

    @Test("footer with an error: '⚠ reason · board 3m old', board still shown")
    func footerError() {
        let entry = LeaderboardEntry(date: at(200), board: rosterBoard, fetchedAt: at(0), fetchError: "connection refused")
        let frame = render(entry, family: .large, width: 52, height: 21)
        let lines = TextBackend.lines(frame)
        #expect(lines.last == "⚠ connection refused · board 3m old")
        #expect(lines.contains { $0.contains("Octo") }, "the last good board stays")
        let ascii = TextBackend.lines(render(entry, family: .small, width: 40, height: 6, glyphs: .ascii))
        #expect(ascii.last == "! connection refused - board 3m old")
        let noBoard = LeaderboardEntry(date: at(200), board: nil, fetchError: "connection refused")
        #expect(TextBackend.lines(render(noBoard, family: .large, width: 52, height: 21)).last == "⚠ connection refused")
    }

    @Test("a long error is cut, the board's age is kept")
    func longError() {
        let entry = LeaderboardEntry(date: at(200), board: rosterBoard, fetchedAt: at(0),
                                     fetchError: String(repeating: "very long reason ", count: 10))
        let last = TextBackend.lines(render(entry, family: .medium, width: 40, height: 6)).last ?? ""
        #expect(last == "⚠ very long reason very …" + " · board 3m old")
        #expect(DisplayWidth.of(last) == 40)
        let ascii = TextBackend.lines(render(entry, family: .medium, width: 40, height: 6, glyphs: .ascii)).last ?? ""
        #expect(ascii == "! very long reason ver..." + " - board 3m old")
        let narrow = TextBackend.lines(render(entry, family: .small, width: 12, height: 4)).last ?? ""
        #expect(narrow == "⚠ very long…", "too narrow for both: the line is simply cut")
    }

    @Test("a long error is cut, 'retry in Ns' and the board's age are kept")
    func longErrorWithRetry() {
        let entry = LeaderboardEntry(date: at(200), board: rosterBoard, fetchedAt: at(0),
                                     fetchError: "server answered 429 Too Many Requests (asked to retry in 86400000 s) · retry in 287s")
        let last = TextBackend.lines(render(entry, family: .large, width: 52, height: 21)).last ?? ""
        #expect(last == "⚠ server answered 42… · retry in 287s · board 3m old")
        let ascii = TextBackend.lines(render(entry, family: .large, width: 52, height: 21, glyphs: .ascii)).last ?? ""
        #expect(ascii == "! server answered ... - retry in 287s - board 3m old")
    }

    @Test("'retry in Ns' counts down at the frame's time when the entry knows the moment; the footer's 'updated' age moves on")
    func retryCountsDown() {
        var entry = LeaderboardEntry(date: at(200), board: rosterBoard, fetchedAt: at(0),
                                     fetchError: "connection refused · retry in 60s")
        entry.retryAt = at(260)
        func footer(at now: Date) -> String {
            var buffer = CellBuffer(width: 52, height: 21)
            LeaderboardView.view(entry, context: WidgetViewContext(family: .large, size: CellSize(columns: 52, rows: 21)))
                .draw(into: &buffer, in: buffer.bounds, glyphs: .unicode, at: now)
            return TextBackend.lines(buffer).last ?? ""
        }
        #expect(footer(at: at(200)) == "⚠ connection refused · retry in 60s · board 3m old")
        #expect(footer(at: at(250.5)) == "⚠ connection refused · retry in 10s · board 3m old")
        let fresh = LeaderboardEntry(date: at(10), board: rosterBoard, fetchedAt: at(0))
        var buffer = CellBuffer(width: 52, height: 21)
        LeaderboardView.view(fresh, context: WidgetViewContext(family: .large, size: CellSize(columns: 52, rows: 21)))
            .draw(into: &buffer, in: buffer.bounds, glyphs: .unicode, at: at(130))
        #expect(TextBackend.lines(buffer).last == "updated 2m ago")
    }

    @Test("placeholder: the redacted look, with no data shown")
    func placeholder() {
        let placeholderEntry = LeaderboardEntry(date: .distantPast, board: nil)
        let frame = render(placeholderEntry, family: .large, width: 52, height: 21, placeholder: true)
        expectSnapshot(text(frame), named: "leaderboard-large-placeholder")
        #expect(TextBackend.lines(frame).first?.hasPrefix("▒▒▒▒▒▒▒▒") == true)
        let lines = TextBackend.lines(render(freshEntry, family: .large, width: 52, height: 21, placeholder: true))
        #expect(lines.first?.hasPrefix("▒▒▒▒▒▒▒▒") == true)
        #expect(!lines.contains { $0.contains("Octo") }, "a real entry drawn as placeholder shows no heroes")
        let empty = LeaderboardEntry(date: .distantPast, board: nil)
        let ascii = TextBackend.lines(render(empty, family: .small, width: 20, height: 5, glyphs: .ascii, placeholder: true))
        #expect(ascii.first?.hasPrefix("########") == true)
    }

    @Test("a real entry without a board says what is missing, never the redacted look: only the placeholder is redacted (issue 26, item 8)")
    func noBoardSaysSo() {
        let failed = LeaderboardEntry(date: at(0), board: nil, fetchError: "connection refused · retry in 5s")
        let lines = TextBackend.lines(render(failed, family: .large, width: 52, height: 21))
        #expect(!lines.joined().contains("▒"), "\(lines.joined(separator: "\n"))")
        #expect(lines.contains { $0.contains("no board yet") })
        #expect(lines.last?.contains("connection refused") == true)
        let fetching = LeaderboardEntry(date: at(0), board: nil, isFetching: true)
        let loading = TextBackend.lines(render(fetching, family: .small, width: 20, height: 5))
        #expect(loading.contains { $0.contains("fetching the board") } && !loading.joined().contains("▒"))
        #expect(TextBackend.lines(render(fetching, family: .large, width: 52, height: 21)).last == "fetching…")
    }

    @Test("an empty board says so")
    func emptyBoard() {
        let entry = LeaderboardEntry(date: at(10), board: LeaderboardBoard(updated: at(0), heroes: []), fetchedAt: at(0))
        #expect(text(render(entry, family: .large, width: 52, height: 21)).contains("no heroes on the board"))
    }

    @Test("the ASCII glyph set draws ^/v, # bars, '-' separators and nothing else outside ASCII but avatars")
    func asciiGlyphs() {
        let frame = render(changedEntry, family: .large, width: 52, height: 21, glyphs: .ascii)
        expectSnapshot(text(frame), named: "leaderboard-large-ascii")
        let lines = TextBackend.lines(frame)
        #expect(lines.contains { $0.hasPrefix("3^") } && lines.contains { $0.hasPrefix("5v") })
        #expect(lines.contains { $0.contains("Octopus - full health in 36m") })
        let fetching = LeaderboardEntry(date: at(0), board: nil, isFetching: true)
        let error = LeaderboardEntry(date: at(200), board: laterBoard, previous: rosterBoard, fetchedAt: at(0), fetchError: "refused",
                                     skipped: 1)
        let skipped = LeaderboardEntry(date: at(20), board: laterBoard, previous: rosterBoard, fetchedAt: at(0), skipped: 1)
        var all = lines
        for entry in [fetching, error, skipped] {
            for family in WidgetFamily.allCases {
                all += TextBackend.lines(render(entry, family: family, width: 52, height: 21, glyphs: .ascii))
            }
        }
        all += TextBackend.lines(render(HeroEntry(date: at(0), hero: roster[2], rank: 2, name: "Spouty"), width: 24, height: 7,
                                        glyphs: .ascii))
        #expect(all.contains("fetching...") && all.contains("! refused - board 3m old")
                && all.contains("updated <1m ago - 1 unreadable"))
        let drawn = all.joined().unicodeScalars.filter { !$0.properties.isEmojiPresentation }
        #expect(drawn.allSatisfy { $0.isASCII }, "only the emoji avatars are not ASCII: \(String(String.UnicodeScalarView(drawn.filter { !$0.isASCII })))")
    }

    @Test("0x0, 1x1 and tiny rectangles never crash, and nothing is drawn outside the rectangle",
          arguments: WidgetFamily.allCases)
    func tinyRects(family: WidgetFamily) {
        let entries = [changedEntry, freshEntry,
                       LeaderboardEntry(date: at(200), board: rosterBoard, fetchedAt: at(0), fetchError: "refused"),
                       LeaderboardEntry(date: at(0), board: nil, isFetching: true)]
        let sizes = [(0, 0), (1, 1), (0, 5), (5, 0), (1, 2), (2, 1), (2, 2), (3, 3), (4, 2), (8, 3), (12, 4), (20, 2), (45, 5),
                     (46, 6), (52, 12), (52, 13)]
        for entry in entries {
            for glyphs in [GlyphSet.unicode, .ascii] {
                for placeholder in [false, true] {
                    for (width, height) in sizes {
                        var buffer = CellBuffer(width: width + 6, height: height + 4)
                        buffer.fill(buffer.bounds, with: Cell.blank())
                        let rect = Rect(x: 3, y: 2, width: width, height: height)
                        let context = WidgetViewContext(family: family, size: CellSize(columns: width, rows: height),
                                                        isPlaceholder: placeholder)
                        let before = buffer
                        LeaderboardView.view(entry, context: context).draw(into: &buffer, in: rect, glyphs: glyphs)
                        for y in 0..<buffer.height {
                            for x in 0..<buffer.width where !rect.contains(x: x, y: y) && buffer[x, y] != before[x, y] {
                                Issue.record("\(family) \(width)x\(height) drew outside its rect at (\(x), \(y))")
                            }
                        }
                    }
                }
            }
        }
    }

    @Test("the configuration's view draws a leaderboard entry and ignores other entry types")
    func configurationView() {
        let widget = LeaderboardWidget.configuration(context: .none, registry: LeaderboardSessionRegistry())
        let context = WidgetViewContext(family: .small, size: CellSize(columns: 24, rows: 7))
        var buffer = CellBuffer(width: 24, height: 7)
        widget.view(freshEntry, context).draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
        #expect(text(buffer).contains("Octo"))
        var other = CellBuffer(width: 24, height: 7)
        widget.view(TestEntry(date: at(0), label: "x"), context).draw(into: &other, in: other.bounds, glyphs: .unicode)
        #expect(other == CellBuffer(width: 24, height: 7))
    }

    @Test("durations and exp are formatted for people")
    func formatting() {
        #expect(DurationText.duration(0) == "<1m")
        #expect(DurationText.duration(61) == "2m")
        #expect(DurationText.duration(3600) == "1h")
        #expect(DurationText.duration(7980) == "2h 13m")
        #expect(DurationText.duration(3 * 86_400) == "3d")
        #expect(DurationText.age(from: at(0), to: at(59)) == "<1m")
        #expect(DurationText.age(from: at(0), to: at(60 * 125 + 59)) == "2h 5m")
        #expect(LeaderboardView.formatExp(86463) == "86,463")
        #expect(LeaderboardView.formatExp(600) == "600")
        #expect(LeaderboardView.formatExp(1_234_567) == "1.2M")
        #expect(LeaderboardView.compact(15000) == "15k")
    }
}
