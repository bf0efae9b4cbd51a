import FoundationEssentials
import WidgetCore

/// The hero widget's provider: reads the leaderboard's boards from its container and gives
/// one entry per minute until the hero is at full health, then `.atEnd` (`.never` when nothing
/// is ahead) — the leaderboard's `didFinishEvents` reloads it through `WidgetCenter` when a
/// new board arrives.
public struct HeroProvider: TimelineProvider {
    public var name: String
    public var session: String
    let store: LeaderboardStore
    let now: @Sendable () -> Date
    /// The hero's page on its leaderboard's server, for the entries' `url` (nil: none known).
    var page: @Sendable () -> String? = { nil }

    /// At most a day of entries per timeline (a slow healer asks again after it).
    static let maximumEntries = 24 * 60

    public func placeholder(in context: Context) -> HeroEntry {
        HeroEntry(date: .distantPast, hero: nil, rank: nil, name: name)
    }

    /// The hero now; in a preview (`isPreview`) the hero of the sample board (its first when
    /// the name is not one of the Emoji Rangers), as WidgetKit's snapshot shows sample data.
    public func snapshot(in context: Context) async -> HeroEntry {
        if context.isPreview {
            let date = now()
            let board = LeaderboardBoard.sample(updated: date)
            let hero = board.hero(named: name) ?? board.heroes[0]
            return HeroEntry(date: date, hero: hero, rank: board.rank(of: hero.name), name: hero.name)
        }
        return entries(from: now()).first ?? placeholder(in: context)
    }

    public func timeline(in context: Context) async throws -> Timeline<HeroEntry> {
        let entries = entries(from: now())
        // Nothing will change on its own once the hero is at full health (or not on the board):
        // `.never`, and the leaderboard's session events reload this kind when a board arrives.
        return Timeline(entries: entries, policy: entries.count > 1 ? .atEnd : .never)
    }

    /// Entries from `start`: one now, then one per minute boundary while health recovers.
    func entries(from start: Date) -> [HeroEntry] {
        let state = store.load(session: session)
        guard let board = state.board, let hero = board.hero(named: name) else {
            return [HeroEntry(date: start, hero: nil, rank: nil, name: name)]
        }
        let base = state.fetchedAt ?? start
        let rank = board.rank(of: name)
        let url = page()
        let before = state.previous
        func at(_ date: Date) -> HeroEntry {
            var projected = hero
            projected.health = hero.health(after: date.timeIntervalSince(base))
            var entry = HeroEntry(date: date, hero: projected, rank: rank, name: name)
            entry.url = url
            entry.previousRank = before?.rank(of: name)
            entry.previousExp = before?.hero(named: name)?.exp
            return entry
        }
        var entries = [at(start)]
        // A hero that does not recover (a rate of 0, or too small to ever get there) has nothing ahead.
        guard hero.secondsToFullHealth != nil else { return entries }
        var next = (start.timeIntervalSince1970 / 60).rounded(.down) * 60 + 60
        while entries.last!.hero!.health < 1, entries.count < Self.maximumEntries {
            entries.append(at(Date(timeIntervalSince1970: next)))
            next += 60
        }
        return entries
    }
}
