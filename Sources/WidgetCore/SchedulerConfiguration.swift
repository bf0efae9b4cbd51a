import FoundationEssentials

/// The rules the scheduler applies to system-initiated reloads, timeouts and retries.
public struct SchedulerConfiguration: Sendable, Equatable {
    /// Least time between two reloads of one instance that the system starts (seconds).
    /// A policy date in the past, or `.atEnd` with nothing ahead, waits this long.
    public var minimumReloadInterval: TimeInterval
    /// System-initiated reloads allowed per instance in any 24 hours; `nil` = no limit.
    /// User-initiated reloads are exempt.
    public var dailyReloadBudget: Int?
    /// How long a provider may take to answer a timeline request (seconds).
    public var requestTimeout: TimeInterval
    /// First retry delay after a failure (seconds); doubles per consecutive failure.
    public var retryBaseDelay: TimeInterval
    /// Upper bound of the retry delay (seconds).
    public var retryMaxDelay: TimeInterval
    /// Seed for the retry jitter, so runs (and tests) are reproducible.
    public var jitterSeed: UInt64

    public init(
        minimumReloadInterval: TimeInterval = 5,
        dailyReloadBudget: Int? = nil,
        requestTimeout: TimeInterval = 30,
        retryBaseDelay: TimeInterval = 5,
        retryMaxDelay: TimeInterval = 600,
        jitterSeed: UInt64 = 0x5EED
    ) {
        self.minimumReloadInterval = max(0.001, minimumReloadInterval)
        self.dailyReloadBudget = dailyReloadBudget.map { max(1, $0) }
        self.requestTimeout = max(0.001, requestTimeout)
        self.retryBaseDelay = max(0.001, retryBaseDelay)
        self.retryMaxDelay = max(self.retryBaseDelay, retryMaxDelay)
        self.jitterSeed = jitterSeed
    }
}
