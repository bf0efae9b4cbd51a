import FoundationEssentials
import WidgetCore

/// One reading of the `system` widget, with CPU use measured against the reading before it.
public struct SystemEntry: TimelineEntry, Equatable, Codable {
    public var date: Date
    /// Busy fraction of all CPUs since the previous reading (0…1); nil for the first reading,
    /// which has nothing to compare with.
    public var cpu: Double?
    /// Busy fraction per CPU, by CPU number, for the CPUs present in both readings.
    public var cores: [CoreUsage]
    public var memory: MemoryInfo?
    public var load: LoadAverage?
    /// Seconds since boot.
    public var uptime: Double?
    /// Recent CPU fractions, oldest first (at most `SystemHistory.capacity`).
    public var history: [Double]
    /// Files that were missing or odd this time (`/proc/loadavg missing`).
    public var problems: [String]

    public struct CoreUsage: Sendable, Equatable, Codable {
        public var index: Int
        public var usage: Double

        public init(index: Int, usage: Double) {
            self.index = index
            self.usage = usage
        }
    }

    public init(date: Date, cpu: Double? = nil, cores: [CoreUsage] = [], memory: MemoryInfo? = nil, load: LoadAverage? = nil,
                uptime: Double? = nil, history: [Double] = [], problems: [String] = []) {
        self.date = date
        self.cpu = cpu
        self.cores = cores
        self.memory = memory
        self.load = load
        self.uptime = uptime
        self.history = history
        self.problems = problems
    }
}
