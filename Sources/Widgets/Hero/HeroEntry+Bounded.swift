import WidgetCore

/// A hero entry read from a message log: a hero the decoder would refuse is shown as missing.
extension HeroEntry: BoundedEntry {
    public func bounded() -> HeroEntry {
        var entry = self
        entry.hero = hero.flatMap { LeaderboardDecoder.isValid($0) ? $0 : nil }
        entry.rank = rank.map { min(max(0, $0), 1_000_000) }
        return entry
    }
}
