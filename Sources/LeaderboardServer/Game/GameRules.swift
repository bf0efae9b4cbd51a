/// The numbers that drive the game; the defaults make a lively demo.
public struct GameRules: Sendable, Equatable {
    /// Seconds of wall time per tick; also how far `updated` moves per tick.
    public var tickSeconds: Int = 3
    /// Game time runs this many times faster than wall time, for health recovery only
    /// (60: a recovery "hour" passes in a real minute, so the bars move in a demo).
    public var timeScale: Double = 60
    /// Battles fought per tick; each takes two different heroes.
    public var battlesPerTick: Int = 1
    /// Exp the winner of a battle gains (uniform, both ends included).
    public var winnerExp: ClosedRange<Int> = 20...120
    /// Health the loser and the winner of a battle lose (uniform).
    public var loserDamage: Range<Double> = 0.04..<0.12
    public var winnerDamage: Range<Double> = 0.01..<0.04
    /// Fighting never takes health below this.
    public var healthFloor: Double = 0.05
    /// A hero goes up one level each time its exp crosses a multiple of this.
    public var expPerLevel: Int = 200
    /// Health a heal (`POST /heroes/NAME/heal`) gives, up to 1.
    public var healAmount: Double = 0.25

    public init() {}
}
