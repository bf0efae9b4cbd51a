/// Where the leaderboard service listens, how its game runs and how it misbehaves.
public struct LeaderboardServiceConfiguration: Sendable, Equatable {
    /// A numeric IPv4 or IPv6 address.
    public var host: String = "127.0.0.1"
    /// 0 takes a free port.
    public var port: UInt16 = 8787
    /// If `port` is taken, take a free one instead of failing (the default dashboard does).
    public var fallbackToFreePort = false
    /// The game's seed; nil draws one at random.
    public var seed: UInt64?
    /// The game's rules; `rules.tickSeconds` is also the timer's period.
    public var rules = GameRules()
    /// Faults injected into `/leaderboard` and `/healthz` answers.
    public var faults = FaultInjection()
    /// At most this many access-log lines per second, then one "… N more requests not logged"
    /// line once the second is over; nil logs every request (tests and benchmarks that count
    /// requests by their lines).
    public var accessLogLinesPerSecond: Int?
    /// Seconds between comment keep-alives on a quiet `GET /events` stream; 0: none.
    public var keepaliveSeconds = 0
    /// `GET /events` streams open at once; past it, a newcomer takes the place of the oldest
    /// stream open for `streamTakeoverAfter`, and is answered 503 when there is none.
    public var maxStreams = 64
    /// How long a `GET /events` stream keeps its place against a newcomer when all
    /// `maxStreams` are taken (a client that never reads must not hold a place forever).
    public var streamTakeoverAfter: Duration = .seconds(60)

    public init(host: String = "127.0.0.1", port: UInt16 = 8787) {
        self.host = host
        self.port = port
    }

    /// Seconds between ticks (at least 1).
    public var tickSeconds: Int {
        get { rules.tickSeconds }
        set { rules.tickSeconds = newValue }
    }
}
