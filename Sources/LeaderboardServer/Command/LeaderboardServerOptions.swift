/// The options of `leaderboard-server`, as parsed from its command line.
public struct LeaderboardServerOptions: Sendable, Equatable {
    public var host = "127.0.0.1"
    /// 0 takes a free port.
    public var port: UInt16 = 8787
    public var tickSeconds = 3
    /// nil: a random seed.
    public var seed: UInt64?
    /// No access log on stderr.
    public var quiet = false
    /// Access-log lines per second at most (then one summary line); 0 logs every request.
    public var logLimit = 50
    public var failRate = 0.0
    public var delayMilliseconds = 0
    public var truncateRate = 0.0
    public var garbageRate = 0.0
    /// Seconds between keep-alive comments on `/events` streams; 0: none.
    public var keepaliveSeconds = 0
    /// `/events` streams at once (the rest get 503).
    public var maxStreams = 64

    public init() {}

    /// The service these options describe (the fault options go to `faults`).
    public var serviceConfiguration: LeaderboardServiceConfiguration {
        var config = LeaderboardServiceConfiguration(host: host, port: port)
        config.seed = seed
        config.tickSeconds = tickSeconds
        config.accessLogLinesPerSecond = logLimit > 0 ? logLimit : nil
        config.keepaliveSeconds = keepaliveSeconds
        config.maxStreams = maxStreams
        config.faults.seed = seed ?? 0
        config.faults.failureRate = failRate
        config.faults.truncateRate = truncateRate
        config.faults.garbageRate = garbageRate
        config.faults.delay = .milliseconds(delayMilliseconds)
        return config
    }
}
