import FoundationEssentials

/// One hero of the Emoji Rangers leaderboard, as the server sends it (DESIGN.md §4).
public struct LeaderboardHero: Sendable, Equatable, Codable {
    public var name: String
    public var avatar: String
    public var heroType: String
    public var level: Int
    public var exp: Int
    /// 0…1.
    public var health: Double
    /// Health recovered per hour, up to 1.
    public var healthRecoveryRatePerHour: Double

    public init(name: String, avatar: String, heroType: String, level: Int, exp: Int, health: Double,
                healthRecoveryRatePerHour: Double) {
        self.name = name
        self.avatar = avatar
        self.heroType = heroType
        self.level = level
        self.exp = exp
        self.health = health
        self.healthRecoveryRatePerHour = healthRecoveryRatePerHour
    }

    /// Health `seconds` after this hero's health was read, recovering at its rate, within 0…1.
    ///
    /// Total for any input (a rate or an elapsed time from a hostile board or a stepped clock):
    /// an overflow to infinity is full health, a NaN keeps the health read.
    public func health(after seconds: TimeInterval) -> Double {
        let recovered = health + healthRecoveryRatePerHour * (seconds > 0 ? seconds : 0) / 3600
        guard !recovered.isNaN else { return min(1, max(0, health.isNaN ? 0 : health)) }
        return min(1, max(0, recovered))
    }

    /// Seconds until full health from `health`, or 0 when already full (nil when it never
    /// recovers: a rate of 0, or one so small that the time is not a finite number).
    public var secondsToFullHealth: TimeInterval? {
        if health >= 1 { return 0 }
        guard healthRecoveryRatePerHour > 0 else { return nil }
        let seconds = (1 - health) / healthRecoveryRatePerHour * 3600
        return seconds.isFinite ? seconds : nil
    }
}

/// A leaderboard as received: when the server updated it, and its heroes ranked by exp (ties
/// by name).
public struct LeaderboardBoard: Sendable, Equatable, Codable {
    public var updated: Date
    public var heroes: [LeaderboardHero]

    public init(updated: Date, heroes: [LeaderboardHero]) {
        self.updated = updated
        self.heroes = heroes.sorted { ($0.exp, $1.name) > ($1.exp, $0.name) }
    }

    /// 1-based rank of the hero named `name`, if present.
    public func rank(of name: String) -> Int? {
        heroes.firstIndex { $0.name == name }.map { $0 + 1 }
    }

    public func hero(named name: String) -> LeaderboardHero? {
        heroes.first { $0.name == name }
    }
}
