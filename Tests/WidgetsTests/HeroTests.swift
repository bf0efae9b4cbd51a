import BackgroundSessions
import FoundationEssentials
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

private let smallContext = TimelineProviderContext(family: .small, size: CellSize(columns: 24, rows: 7))

/// A hero provider reading a store in `directory` that holds `board` fetched at `fetchedAt`.
private func provider(_ name: String, directory: String, board: LeaderboardBoard?, fetchedAt: Date, now: Date) -> HeroProvider {
    let store = LeaderboardStore(container: try? WidgetContainer(kind: "leaderboard", stateDirectory: directory))
    if let board {
        var state = LeaderboardState()
        state.received(LeaderboardDecoder.Result(board: board, skipped: 0), at: fetchedAt)
        store.save(state, session: "leaderboard")
    }
    return HeroProvider(name: name, session: "leaderboard", store: store, now: { now })
}

@Suite("Hero widget")
struct HeroTests {
    @Test("one entry per minute while health recovers, the last at full health, then .atEnd")
    func entriesUntilFull() async throws {
        let dir = TemporaryStateDirectory()
        // 0.9 at 0.6/h: full after 10 minutes.
        let board = LeaderboardBoard(updated: at(0), heroes: [hero("Cake", exp: 10, health: 0.9, rate: 0.6)])
        let timeline = try await provider("Cake", directory: dir.path, board: board, fetchedAt: at(0), now: at(30))
            .timeline(in: smallContext)
        #expect(timeline.policy == .atEnd)
        #expect(timeline.entries.map { $0.date.timeIntervalSince(testEpoch) } == [30] + (1...10).map { Double($0 * 60) })
        let health = timeline.entries.map { $0.hero?.health ?? -1 }
        #expect(health.last == 1)
        #expect(health.dropLast().allSatisfy { $0 < 1 }, "only the last entry is at full health")
        #expect(abs(health[0] - (0.9 + 0.6 * 30 / 3600)) < 1e-9, "health projected from when the board was fetched")
        #expect(timeline.entries.allSatisfy { $0.rank == 1 && $0.name == "Cake" })
    }

    @Test("a hero at full health, missing, or not recovering (rate 0, or too slow to be a number) gets one entry and .never, so it does not poll")
    func fullAndStuck() async throws {
        let dir = TemporaryStateDirectory()
        let board = LeaderboardBoard(updated: at(0), heroes: [hero("Full", exp: 2, health: 1, rate: 0.2),
                                                              hero("Stuck", exp: 1, health: 0.3, rate: 0)])
        let full = try await provider("Full", directory: dir.path, board: board, fetchedAt: at(0), now: at(0)).timeline(in: smallContext)
        #expect(full.entries.count == 1 && full.policy == .never, "nothing changes until a new board reloads it")
        let missing = try await provider("Nobody", directory: dir.path, board: board, fetchedAt: at(0), now: at(0)).timeline(in: smallContext)
        #expect(missing.entries.count == 1 && missing.policy == .never)
        let stuck = try await provider("Stuck", directory: dir.path, board: nil, fetchedAt: at(0), now: at(0)).timeline(in: smallContext)
        #expect(stuck.entries.count == 1 && stuck.policy == .never, "nothing changes until a new board reloads it")
        let slow = LeaderboardBoard(updated: at(0), heroes: [hero("Slow", exp: 1, health: 0.3, rate: .leastNonzeroMagnitude)])
        let stopped = try await provider("Slow", directory: dir.path, board: slow, fetchedAt: at(0), now: at(0)).timeline(in: smallContext)
        #expect(stopped.entries.count == 1 && stopped.policy == .never)
    }

    @Test("time to full health for a known health and rate: 'full in 2h 13m' on the hero, 'full health in 2h 13m' on the board")
    func timeToFull() throws {
        // 0.5 missing at 0.2256/h = 132.98 minutes, shown rounded up.
        let octo = hero("Octo", "🐙", type: "Octopus", level: 43, exp: 86463, health: 0.5, rate: 0.2256)
        let seconds = try #require(octo.secondsToFullHealth)
        #expect(seconds > 132 * 60 && seconds < 133 * 60)
        let entry = HeroEntry(date: at(0), hero: octo, rank: 1, name: "Octo")
        let frame = render(entry, width: 24, height: 7)
        expectSnapshot(text(frame), named: "hero-small-24x7")
        #expect(text(frame).contains("full in 2h 13m"))
        #expect(text(frame).contains("level 43 · #1"))
        let board = LeaderboardEntry(date: at(0), board: LeaderboardBoard(updated: at(0), heroes: [octo]), fetchedAt: at(0))
        #expect(text(render(board, family: .large, width: 52, height: 21)).contains("Octopus · full health in 2h 13m"))
    }

    @Test("a missing hero shows 'no board with NAME yet', with or without a board")
    func missingHero() async throws {
        let dir = TemporaryStateDirectory()
        let none = try await provider("Nemo", directory: dir.path, board: nil, fetchedAt: at(0), now: at(0)).timeline(in: smallContext)
        #expect(none.entries.count == 1 && none.entries[0].hero == nil && none.entries[0].relevance == nil)
        let other = try await provider("Nemo", directory: dir.path, board: rosterBoard, fetchedAt: at(0), now: at(0))
            .timeline(in: smallContext)
        #expect(other.entries.count == 1 && other.entries[0].hero == nil)
        let frame = render(other.entries[0], width: 30, height: 5)
        #expect(TextBackend.lines(frame).contains { $0.trimmingPrefix(while: { $0 == " " }) == "no board with Nemo yet" })
    }

    @Test("relevance is 1 - health, so a hurt hero ranks first")
    func relevance() {
        let hurt = HeroEntry(date: at(0), hero: hero("Panda", exp: 1, health: 0.25, rate: 0.1), rank: 1, name: "Panda")
        let fine = HeroEntry(date: at(0), hero: hero("Spouty", exp: 1, health: 1, rate: 0.1), rank: 2, name: "Spouty")
        #expect(hurt.relevance?.score == 0.75)
        #expect(fine.relevance?.score == 0)
        #expect((hurt.relevance?.score ?? 0) > (fine.relevance?.score ?? 0))
    }

    @Test("placeholder is redacted; full health says so; tiny rectangles never crash")
    func looks() {
        let spouty = hero("Spouty", "🐳", type: "Spouter", level: 50, exp: 20000, health: 1, rate: 0.59)
        let entry = HeroEntry(date: at(0), hero: spouty, rank: 2, name: "Spouty")
        #expect(text(render(entry, width: 24, height: 7, placeholder: true)).contains("▒▒▒▒▒▒▒▒▒▒"))
        #expect(text(render(entry, width: 24, height: 7, glyphs: .ascii, placeholder: true)).contains("##########"))
        #expect(text(render(entry, width: 24, height: 7)).contains("full health"))
        for family in [WidgetFamily.small, .medium] {
            for (width, height) in [(0, 0), (1, 1), (2, 1), (1, 3), (3, 2), (5, 5), (10, 1), (18, 3)] {
                for glyphs in [GlyphSet.unicode, .ascii] {
                    var buffer = CellBuffer(width: width + 4, height: height + 4)
                    let rect = Rect(x: 2, y: 2, width: width, height: height)
                    let before = buffer
                    HeroWidget.view(entry, context: WidgetViewContext(family: family, size: CellSize(columns: width, rows: height)))
                        .draw(into: &buffer, in: rect, glyphs: glyphs)
                    for y in 0..<buffer.height {
                        for x in 0..<buffer.width where !rect.contains(x: x, y: y) && buffer[x, y] != before[x, y] {
                            Issue.record("hero \(width)x\(height) drew outside its rect at (\(x), \(y))")
                        }
                    }
                }
            }
        }
    }
}

@Suite("Hero widget: the heal action's URL")
struct HeroHealURLTests {
    @Test("the heal URL sits next to the board's, the name percent-encoded")
    func healURL() {
        #expect(HeroWidget.healURL(board: "http://127.0.0.1:8787/leaderboard", hero: "Power Panda")
                == "http://127.0.0.1:8787/heroes/Power%20Panda/heal")
        #expect(HeroWidget.healURL(board: "http://h/api/v1/board?x=1#f", hero: "Mr. Spook") == "http://h/api/v1/heroes/Mr.%20Spook/heal")
        #expect(HeroWidget.healURL(board: "http://h/board", hero: "a/b?🐼") == "http://h/heroes/a%2Fb%3F%F0%9F%90%BC/heal")
        #expect(HeroWidget.healURL(board: "not a url", hero: "Octo") == nil)
        #expect(HeroWidget.healURL(board: "http://host", hero: "Octo") == nil)
    }
}
