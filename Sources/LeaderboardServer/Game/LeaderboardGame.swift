/// The Emoji Rangers game: heroes fight, gain exp and levels, lose and regain health.
///
/// A value type with no clock and no I/O: `advance(ticks:)` plays ticks, and the same seed,
/// start and tick count always give the same board, byte for byte. `LeaderboardService` drives
/// it from a timer.
///
/// One tick, in order:
/// 1. `rules.battlesPerTick` battles: two different heroes drawn at random; the winner is drawn
///    with odds in proportion to health; it gains `winnerExp`; both lose health (`loserDamage`,
///    `winnerDamage`), never going below `healthFloor` by fighting.
/// 2. Everyone recovers `healthRecoveryRatePerHour × tickSeconds × timeScale / 3600`, up to 1.
/// 3. If any hero changed, `updated` becomes the tick's time (`start + ticks × tickSeconds`).
///
/// Levels follow exp and never go down: a hero gains one level for each multiple of
/// `expPerLevel` its exp crosses (see `level(after:from:level:)`).
///
/// ```swift
/// var game = LeaderboardGame(seed: 7, start: 1_796_014_800)
/// game.advance(ticks: 10)
/// let json = game.boardJSON()
/// ```
public struct LeaderboardGame: Sendable {
    public let rules: GameRules
    /// Seconds since 1970 (UTC) of tick 0.
    public let start: Int
    public private(set) var ticks = 0
    /// Seconds since 1970 (UTC) of the last tick that changed a hero (`start` until then).
    public private(set) var updated: Int
    private var heroesInPlay: [Hero]
    private var random: GameRandom

    /// - Parameters:
    ///   - heroes: the roster; names should be unique (they break ties in the ranking).
    ///   - start: seconds since 1970 (UTC) of tick 0.
    public init(heroes: [Hero] = Hero.emojiRangers, seed: UInt64, start: Int, rules: GameRules = GameRules()) {
        self.rules = rules
        self.start = start
        self.updated = start
        self.heroesInPlay = heroes
        self.random = GameRandom(seed: seed)
    }

    /// The heroes ranked by exp (highest first), ties by name (code point order).
    public var heroes: [Hero] {
        heroesInPlay.sorted { a, b in
            a.exp != b.exp ? a.exp > b.exp : a.name.unicodeScalars.lexicographicallyPrecedes(b.name.unicodeScalars)
        }
    }

    /// Plays `ticks` ticks (0 or more).
    public mutating func advance(ticks count: Int = 1) {
        for _ in 0..<max(0, count) { tick() }
    }

    private mutating func tick() {
        ticks += 1
        let before = heroesInPlay
        if heroesInPlay.count >= 2 {
            for _ in 0..<rules.battlesPerTick { battle() }
        }
        let hours = Double(rules.tickSeconds) * rules.timeScale / 3600
        for i in heroesInPlay.indices where heroesInPlay[i].health < 1 {
            let recovered = heroesInPlay[i].health + heroesInPlay[i].healthRecoveryRatePerHour * hours
            heroesInPlay[i].health = min(1, recovered)
        }
        if heroesInPlay != before { updated = start + ticks * rules.tickSeconds }
    }

    private mutating func battle() {
        let a = random.below(heroesInPlay.count)
        var b = random.below(heroesInPlay.count - 1)
        if b >= a { b += 1 }
        let (ha, hb) = (heroesInPlay[a].health, heroesInPlay[b].health)
        let oddsA = ha + hb > 0 ? ha / (ha + hb) : 0.5
        let (winner, loser) = random.unit() < oddsA ? (a, b) : (b, a)
        let gain = rules.winnerExp.lowerBound + random.below(rules.winnerExp.count)
        let oldExp = heroesInPlay[winner].exp
        heroesInPlay[winner].exp += gain
        heroesInPlay[winner].level = Self.level(after: heroesInPlay[winner].exp, from: oldExp,
                                                level: heroesInPlay[winner].level, expPerLevel: rules.expPerLevel)
        hurt(winner, by: random.uniform(rules.winnerDamage))
        hurt(loser, by: random.uniform(rules.loserDamage))
    }

    private mutating func hurt(_ index: Int, by damage: Double) {
        let health = heroesInPlay[index].health
        heroesInPlay[index].health = min(health, max(rules.healthFloor, health - damage))
    }

    /// Heals the hero named `name` by `rules.healAmount` (up to 1); `at` (seconds since 1970)
    /// becomes `updated` if the health changed and it is later. False if there is no such hero.
    @discardableResult
    public mutating func heal(_ name: String, at seconds: Int) -> Bool {
        guard let i = heroesInPlay.firstIndex(where: { $0.name == name }) else { return false }
        let healed = min(1, heroesInPlay[i].health + max(0, rules.healAmount))
        if healed != heroesInPlay[i].health {
            heroesInPlay[i].health = healed
            updated = max(updated, seconds)
        }
        return true
    }

    /// Takes `amount` of the health of the hero named `name`, not below `rules.healthFloor`;
    /// `at` becomes `updated` as for a heal. False if there is no such hero.
    @discardableResult
    public mutating func hurt(_ name: String, by amount: Double, at seconds: Int) -> Bool {
        guard let i = heroesInPlay.firstIndex(where: { $0.name == name }) else { return false }
        let before = heroesInPlay[i].health
        hurt(i, by: max(0, amount))
        if heroesInPlay[i].health != before { updated = max(updated, seconds) }
        return true
    }

    /// The level after exp goes from `oldExp` to `newExp`:
    /// `level + ⌊newExp / expPerLevel⌋ − ⌊oldExp / expPerLevel⌋`.
    ///
    /// Relative, so a roster level that does not match its exp (Spouty: level 50 at 20000) is
    /// kept and only moves on; never lower than `level` while exp only grows.
    public static func level(after newExp: Int, from oldExp: Int, level: Int, expPerLevel: Int = 200) -> Int {
        level + newExp / expPerLevel - oldExp / expPerLevel
    }

    /// The board in the wire format of DESIGN §4 (UTF-8 JSON, ranked).
    public func boardJSON() -> [UInt8] {
        var json = JSONWriter()
        json.raw("{\"updated\": ")
        json.string(ISO8601.format(secondsSince1970: updated))
        json.raw(", \"heroes\": [")
        for (i, hero) in heroes.enumerated() {
            json.raw(i == 0 ? "\n  {" : ",\n  {")
            json.raw("\"name\": "); json.string(hero.name)
            json.raw(", \"avatar\": "); json.string(hero.avatar)
            json.raw(", \"heroType\": "); json.string(hero.heroType)
            json.raw(", \"level\": "); json.integer(hero.level)
            json.raw(", \"exp\": "); json.integer(hero.exp)
            json.raw(", \"health\": "); json.decimal(hero.health)
            json.raw(", \"healthRecoveryRatePerHour\": "); json.decimal(hero.healthRecoveryRatePerHour)
            json.raw("}")
        }
        json.raw(heroesInPlay.isEmpty ? "]}\n" : "\n]}\n")
        return json.bytes
    }
}
