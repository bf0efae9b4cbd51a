import FoundationEssentials
import JSONTree
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

// DESIGN.md §9: a view fills the size it gets. Each view is drawn at the content sizes the
// default dashboard gives it at 80x24, 100x30 and 200x60 (and a few more), and no blank
// rectangle may cover more than a third of it; what the bigger sizes add is checked by name.

private func draw(_ node: ViewNode, width: Int, height: Int, glyphs: GlyphSet = .unicode) -> CellBuffer {
    var buffer = CellBuffer(width: width, height: height)
    node.draw(into: &buffer, in: buffer.bounds, glyphs: glyphs)
    return buffer
}

private func context(_ family: WidgetFamily, _ width: Int, _ height: Int) -> WidgetViewContext {
    WidgetViewContext(family: family, size: CellSize(columns: width, rows: height))
}

/// Records an issue naming the blank rectangle when it covers more than a third of `buffer`.
private func expectFilled(_ buffer: CellBuffer, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let blank = PanelBlankAreas.largestBlank(in: buffer)
    #expect(PanelBlankAreas.blankFraction(of: buffer) <= 1.0 / 3,
            "\(what): blank \(blank) = \(blank.cells) of \(buffer.width * buffer.height) cells\n\(text(buffer))",
            sourceLocation: sourceLocation)
}

/// An idle machine: every bar near empty, the sparkline at its floor. The hardest case for §9.
private let idleMachine = SystemEntry(
    date: testEpoch, cpu: 0.01, cores: (0..<2).map { .init(index: $0, usage: 0.01) },
    memory: MemoryInfo(total: 24 << 30, available: 23 << 30), load: LoadAverage(one: 0.05, five: 0.1, fifteen: 0.2),
    uptime: 3600, history: Array(repeating: 0.01, count: 12))

@Suite("Views fill the size they get (DESIGN.md §9)")
struct ViewFillTests {
    @Test("leaderboard, large: each hero gets a detail line with its recovery rate and an exp bar against the leader's, spread down a tall panel")
    func leaderboard() {
        let entry = LeaderboardEntry(date: at(20), board: rosterBoard, fetchedAt: at(0))
        for (width, height) in [(38, 22), (48, 27), (65, 27), (98, 57)] {
            let frame = render(entry, family: .large, width: width, height: height)
            expectFilled(frame, "leaderboard \(width)x\(height)")
        }
        let lines = TextBackend.lines(render(entry, family: .large, width: 48, height: 27))
        #expect(lines.contains { $0.contains("Octopus · full health in 36m · +29%/h") }, "\(lines)")
        // Octo leads: its exp bar spans the row from the name column.
        if let octo = lines.firstIndex(where: { $0.contains("Octo ") }), octo + 2 < lines.count {
            #expect(lines[octo + 2].hasPrefix("       ████████████████████"), "\(lines)")
        } else {
            Issue.record("no Octo row with two rows under it\n\(lines)")
        }
        // Still six heroes at 80x24's size, two rows each.
        let small = TextBackend.lines(render(entry, family: .large, width: 38, height: 22))
        #expect(small.filter { $0.contains("full health") }.count == 6, "\(small)")
    }

    @Test("hero: a tall card adds the type, the recovery rate and the rank on the board before (▲ when it climbed)")
    func hero() {
        var entry = HeroEntry(date: at(0), hero: roster[2], rank: 2, name: "Spouty")
        entry.previousRank = 3
        entry.previousExp = 19_880
        for (width, height) in [(18, 10), (23, 13), (31, 13), (48, 28)] {
            expectFilled(render(entry, width: width, height: height), "hero \(width)x\(height)")
        }
        let card = text(render(entry, width: 23, height: 13))
        for part in ["Spouter", "level 50 · #2 ▲", "recovers 59%/h", "was #3 · +120 exp"] {
            #expect(card.contains(part), "\(part)\n\(card)")
        }
    }

    @Test("clock: big digits where they fit (█, # in ASCII), as wide and tall as the panel allows; AM/PM under them")
    func clock() {
        let entry = ClockEntry(date: at(0), time: "10:00", dateLine: "Mon 30 Nov 2026", zone: "UTC")
        for (width, height) in [(18, 10), (23, 13), (31, 12), (48, 28), (30, 14)] {
            expectFilled(draw(ClockWidget.view(entry, context: context(.small, width, height)), width: width, height: height),
                         "clock \(width)x\(height)")
        }
        let big = TextBackend.lines(draw(ClockWidget.view(entry, context: context(.small, 23, 13)), width: 23, height: 13))
        #expect(big.contains("   ██  ███   ███ ███"), "\(big)")
        let ascii = TextBackend.lines(draw(ClockWidget.view(entry, context: context(.small, 23, 13)), width: 23, height: 13, glyphs: .ascii))
        #expect(ascii.contains("   ##  ###   ### ###"), "\(ascii)")
        // Twice as wide and tall at 200x60's clock.
        let large = TextBackend.lines(draw(ClockWidget.view(entry, context: context(.small, 48, 28)), width: 48, height: 28))
        #expect(large.filter { $0.contains("████    ██████      ██████  ██████") }.count == 2, "\(large)")
        let pm = ClockEntry(date: at(0), time: "2:05 PM", dateLine: "", zone: "UTC")
        let afternoon = TextBackend.lines(draw(ClockWidget.view(pm, context: context(.small, 23, 13)), width: 23, height: 13))
        #expect(afternoon.contains { $0.split(separator: " ") == ["PM"] } && afternoon.contains { $0.contains("███") },
                "\(afternoon)")
        // Too narrow for the big face: the one line, spread with the date and zone.
        let narrow = TextBackend.lines(draw(ClockWidget.view(entry, context: context(.small, 16, 10)), width: 16, height: 10))
        #expect(narrow.contains { $0.contains("10:00") } && !narrow.contains { $0.contains("█") }, "\(narrow)")
    }

    @Test("countdown: the time left in big characters (d h m s) where they fit, else one line; spread down the panel")
    func countdown() {
        let entry = CountdownEntry(date: testEpoch, label: "2027", remaining: "31d 14h 0m", isDone: false,
                                   target: "Fri 1 Jan 2027 00:00", shortTarget: "1 Jan 00:00")
        for (width, height) in [(18, 9), (30, 29), (46, 14), (48, 28)] {
            expectFilled(draw(CountdownWidget.view(entry, context: context(.small, width, height)), width: width, height: height),
                         "countdown \(width)x\(height)")
        }
        let big = TextBackend.lines(draw(CountdownWidget.view(entry, context: context(.small, 46, 14)), width: 46, height: 14))
        #expect(big.contains("    ███  █  ███    █  ███ ███   █ █ █████"), "\(big)")
        var done = entry
        done.remaining = "done"
        done.isDone = true
        let finished = text(draw(CountdownWidget.view(done, context: context(.small, 46, 14)), width: 46, height: 14))
        #expect(finished.contains("done") && !finished.contains("█"), "\(finished)")
    }

    @Test("system: per-core bars as wide as fit, a swap line, meters that show their track, the sparkline under a divider; even idle")
    func system() {
        for (family, width, height) in [(WidgetFamily.medium, 38, 9), (.medium, 48, 12), (.medium, 78, 21), (.medium, 98, 27),
                                        (.large, 38, 20)] {
            expectFilled(draw(SystemWidget.view(idleMachine, context: context(family, width, height)), width: width, height: height),
                         "system \(family) \(width)x\(height)")
        }
        let lines = TextBackend.lines(draw(SystemWidget.view(idleMachine, context: context(.medium, 48, 12)), width: 48, height: 12))
        #expect(lines.contains { $0.contains("cpu0") && $0.contains("cpu1") }, "two cores side by side at 48 columns\n\(lines)")
        #expect(lines.contains { $0.hasPrefix("Swap none") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("CPU  ▍·····") }, "an idle meter is a rail of dots\n\(lines)")
        #expect(lines[8].hasPrefix("────") && lines[11].hasSuffix("▁▁▁▁▁▁▁▁▁▁▁▁"),
                "the sparkline: the last quarter of the rows, under a divider\n\(lines)")
    }

    @Test("http-json: leader dots from each label to its value, fields spread down a tall panel")
    func httpJSON() {
        let fields: [HTTPJSONField] = [
            HTTPJSONField(label: "Name", pointer: try! JSONPointer("/heroes/0/name")),
            HTTPJSONField(label: "Exp", pointer: try! JSONPointer("/heroes/0/exp"), format: .number),
            HTTPJSONField(label: "Health", pointer: try! JSONPointer("/missing")),
        ]
        var stored = HTTPJSONStore.Stored()
        stored.body = try! JSONParser().parse(#"{"heroes": [{"name": "Octo", "exp": 86463}]}"#)
        stored.state.fetchedAt = testEpoch - 60
        let entry = HTTPJSONEntry.timeline(fields: fields, stored: stored, isFetching: false, error: nil,
                                           from: testEpoch, until: testEpoch, retryAt: nil)[0]
        for (width, height) in [(38, 4), (38, 7), (62, 13)] {
            expectFilled(draw(HTTPJSONView.view(entry, context: context(.medium, width, height)), width: width, height: height),
                         "http-json \(width)x\(height)")
        }
        let lines = TextBackend.lines(draw(HTTPJSONView.view(entry, context: context(.medium, 38, 7)), width: 38, height: 7))
        #expect(lines.first == "Name ···························· Octo", "\(lines)")
        #expect(lines.contains("Health ····························· —"), "\(lines)")
        let ascii = TextBackend.lines(draw(HTTPJSONView.view(entry, context: context(.medium, 38, 7)), width: 38, height: 7, glyphs: .ascii))
        #expect(ascii.first == "Name ............................ Octo", "\(ascii)")
    }
}
