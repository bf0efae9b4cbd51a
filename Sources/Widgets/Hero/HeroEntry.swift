import FoundationEssentials
import WidgetCore

/// One moment of the hero widget: a hero with its health as of `date`.
public struct HeroEntry: TimelineEntry, Equatable, Codable {
    public var date: Date
    /// The hero, nil when the boards do not (yet) have one of that name.
    public var hero: LeaderboardHero?
    public var rank: Int?
    /// The hero's rank and exp on the board before this one (the leaderboard's `previous`),
    /// nil when there was none or the hero was not on it: the card's rank history.
    public var previousRank: Int?
    public var previousExp: Int?
    /// The name asked for (shown when the hero is missing).
    public var name: String
    /// Higher when the hero needs attention (low health), for hosts that order by relevance.
    public var relevance: TimelineEntryRelevance?
    /// The hero's page on the leaderboard server (`o` opens it).
    public var url: String?

    public init(date: Date, hero: LeaderboardHero?, rank: Int?, name: String) {
        self.date = date
        self.hero = hero
        self.rank = rank
        self.name = name
        relevance = hero.map { TimelineEntryRelevance(score: Float(1 - $0.health), duration: 60) }
    }
}
