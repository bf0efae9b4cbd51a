/// One Emoji Ranger on the board, as sent on the wire.
public struct Hero: Sendable, Equatable {
    public var name: String
    /// One emoji.
    public var avatar: String
    public var heroType: String
    /// Never decreases; see `LeaderboardGame.level(after:from:level:)`.
    public var level: Int
    public var exp: Int
    /// 0…1 (in play never below `GameRules.healthFloor`).
    public var health: Double
    /// Health regained per hour of game time.
    public var healthRecoveryRatePerHour: Double

    public init(name: String, avatar: String, heroType: String, level: Int, exp: Int,
                health: Double, healthRecoveryRatePerHour: Double) {
        self.name = name
        self.avatar = avatar
        self.heroType = heroType
        self.level = level
        self.exp = exp
        self.health = health
        self.healthRecoveryRatePerHour = healthRecoveryRatePerHour
    }

    /// The seed roster of DESIGN §4, in no particular order.
    public static let emojiRangers: [Hero] = [
        Hero(name: "Power Panda", avatar: "🐼", heroType: "Bear", level: 3, exp: 600,
             health: 0.14, healthRecoveryRatePerHour: 0.25),
        Hero(name: "Egghead", avatar: "🦄", heroType: "Unicorn", level: 5, exp: 1000,
             health: 0.67, healthRecoveryRatePerHour: 0.22),
        Hero(name: "Spouty", avatar: "🐳", heroType: "Spouter", level: 50, exp: 20000,
             health: 0.99, healthRecoveryRatePerHour: 0.59),
        Hero(name: "Mr. Spook", avatar: "💀", heroType: "Ghost", level: 13, exp: 2640,
             health: 0.14, healthRecoveryRatePerHour: 0.25),
        Hero(name: "Cake", avatar: "🎂", heroType: "Birthday", level: 15, exp: 3121,
             health: 0.67, healthRecoveryRatePerHour: 0.22),
        Hero(name: "Octo", avatar: "🐙", heroType: "Octopus", level: 43, exp: 86463,
             health: 0.83, healthRecoveryRatePerHour: 0.29),
    ]
}
