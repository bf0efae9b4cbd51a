/// Time a CPU (or all of them) has spent, from one `cpu` line of `/proc/stat`, in clock ticks
/// since boot.
public struct CPUTimes: Sendable, Equatable {
    /// Ticks not idle (user, nice, system, irq, softirq, steal).
    public var busy: UInt64
    /// All ticks (busy plus idle and iowait).
    public var total: UInt64

    public init(busy: UInt64, total: UInt64) {
        self.busy = busy
        self.total = total
    }

    /// The busy fraction (0…1) between `earlier` and this sample, or nil when the counters did
    /// not move forward (the same instant, a counter reset, a CPU that went offline).
    public func usage(since earlier: CPUTimes) -> Double? {
        let (busyDelta, busyBack) = busy.subtractingReportingOverflow(earlier.busy)
        let (totalDelta, totalBack) = total.subtractingReportingOverflow(earlier.total)
        guard !busyBack, !totalBack, totalDelta > 0 else { return nil }
        return min(1, Double(busyDelta) / Double(totalDelta))
    }
}

/// Memory and swap from `/proc/meminfo`, in bytes.
public struct MemoryInfo: Sendable, Equatable, Codable {
    public var total: UInt64
    /// What programs could still get without swapping (`MemAvailable`, or free + buffers +
    /// cached on kernels before 3.14).
    public var available: UInt64
    /// 0 when there is no swap (containers often have none).
    public var swapTotal: UInt64
    public var swapFree: UInt64

    public init(total: UInt64, available: UInt64, swapTotal: UInt64 = 0, swapFree: UInt64 = 0) {
        self.total = total
        self.available = min(available, total)
        self.swapTotal = swapTotal
        self.swapFree = min(swapFree, swapTotal)
    }

    // Safe however the value was made (a replayed entry is decoded without `init`).
    public var used: UInt64 { total > available ? total - available : 0 }
    public var swapUsed: UInt64 { swapTotal > swapFree ? swapTotal - swapFree : 0 }
    /// Used memory as a fraction of the total (0 when the total is 0).
    public var usedFraction: Double { total == 0 ? 0 : Double(used) / Double(total) }
    public var swapUsedFraction: Double { swapTotal == 0 ? 0 : Double(swapUsed) / Double(swapTotal) }
}

/// The 1, 5 and 15 minute load averages from `/proc/loadavg`.
public struct LoadAverage: Sendable, Equatable, Codable {
    public var one: Double
    public var five: Double
    public var fifteen: Double

    public init(one: Double, five: Double, fifteen: Double) {
        self.one = one
        self.five = five
        self.fifteen = fifteen
    }
}

/// One reading of the proc files: whatever could be read, and what could not.
///
/// A container may lack per-core lines or swap; a sandbox may lack whole files. Each part is
/// optional so the panel shows what exists and names what is missing.
public struct SystemSample: Sendable, Equatable {
    /// All CPUs together (the `cpu` line).
    public var cpu: CPUTimes?
    /// Per CPU, by the number in its `cpuN` line, in that order.
    public var cores: [(index: Int, times: CPUTimes)]
    public var memory: MemoryInfo?
    public var load: LoadAverage?
    /// Seconds since boot.
    public var uptime: Double?
    /// One message per file that was missing or odd (`/proc/loadavg missing`).
    public var problems: [String]

    public init(cpu: CPUTimes? = nil, cores: [(index: Int, times: CPUTimes)] = [], memory: MemoryInfo? = nil,
                load: LoadAverage? = nil, uptime: Double? = nil, problems: [String] = []) {
        self.cpu = cpu
        self.cores = cores
        self.memory = memory
        self.load = load
        self.uptime = uptime
        self.problems = problems
    }

    /// True when not one file gave anything (a wrong root, no proc file system).
    public var isEmpty: Bool { cpu == nil && cores.isEmpty && memory == nil && load == nil && uptime == nil }

    public static func == (a: SystemSample, b: SystemSample) -> Bool {
        a.cpu == b.cpu && a.memory == b.memory && a.load == b.load && a.uptime == b.uptime && a.problems == b.problems
            && a.cores.map(\.index) == b.cores.map(\.index) && a.cores.map(\.times) == b.cores.map(\.times)
    }

    /// Most per-core lines kept (more are read and dropped).
    public static let maximumCores = 1024

    /// Reads `stat`, `meminfo`, `loadavg` and `uptime` under `root`. Never throws: a file that
    /// is missing or odd becomes a problem and its part stays nil.
    public static func read(root: String) -> SystemSample {
        let files = ProcFiles(root: root)
        var sample = SystemSample()
        func use(_ name: String, _ parse: (String) -> Bool) {
            do {
                if !parse(try files.text(name)) { sample.problems.append(ProcFiles.Problem.odd(name).description) }
            } catch {
                sample.problems.append(error.description)
            }
        }
        use("stat") { text in
            guard let (cpu, cores) = parseStat(text) else { return false }
            sample.cpu = cpu
            sample.cores = cores
            return true
        }
        use("meminfo") { text in
            sample.memory = parseMeminfo(text)
            return sample.memory != nil
        }
        use("loadavg") { text in
            sample.load = parseLoadavg(text)
            return sample.load != nil
        }
        use("uptime") { text in
            sample.uptime = parseUptime(text)
            return sample.uptime != nil
        }
        return sample
    }

    // MARK: Parsing (every number checked; nothing here traps)

    /// The `cpu` line and the `cpuN` lines of `/proc/stat`; nil without a usable `cpu` line.
    /// An odd per-core line is skipped.
    static func parseStat(_ text: String) -> (CPUTimes, [(index: Int, times: CPUTimes)])? {
        var total: CPUTimes?
        var cores: [(index: Int, times: CPUTimes)] = []
        for line in text.split(separator: "\n") where line.hasPrefix("cpu") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard let label = fields.first else { continue }
            let times = cpuTimes(fields.dropFirst())
            if label == "cpu" {
                guard total == nil else { continue }
                guard let times else { return nil }
                total = times
            } else if let times, cores.count < maximumCores, label.count <= 8,
                      label.dropFirst(3).allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int(label.dropFirst(3)) {
                cores.append((index, times))
            }
        }
        guard let total else { return nil }
        return (total, cores)
    }

    /// user nice system idle [iowait irq softirq steal [guest guest_nice]]: at least four
    /// numbers; guest time is already inside user time, so it is not added again.
    static func cpuTimes(_ fields: ArraySlice<Substring>) -> CPUTimes? {
        guard fields.count >= 4 else { return nil }
        var numbers: [UInt64] = []
        for field in fields.prefix(8) {
            guard let number = UInt64(field) else { return nil }
            numbers.append(number)
        }
        var total: UInt64 = 0
        for number in numbers {
            let (sum, overflow) = total.addingReportingOverflow(number)
            guard !overflow else { return nil }
            total = sum
        }
        let idle = numbers[3] &+ (numbers.count > 4 ? numbers[4] : 0)   // both parts of `total`: no overflow
        return CPUTimes(busy: total - idle, total: total)
    }

    /// `MemTotal` and `MemAvailable` (or `MemFree + Buffers + Cached`), `SwapTotal` and
    /// `SwapFree` (0 when absent); nil without `MemTotal` or a way to tell what is available.
    static func parseMeminfo(_ text: String) -> MemoryInfo? {
        var values: [Substring: UInt64] = [:]
        let wanted: Set<Substring> = ["MemTotal", "MemAvailable", "MemFree", "Buffers", "Cached", "SwapTotal", "SwapFree"]
        for line in text.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let key = line[..<colon]
            guard wanted.contains(key), values[key] == nil else { continue }
            let rest = line[line.index(after: colon)...].split(separator: " ", omittingEmptySubsequences: true)
            guard let first = rest.first, let number = UInt64(first) else { return nil }
            let unit: UInt64 = rest.dropFirst().first == "kB" ? 1024 : 1
            let (bytes, overflow) = number.multipliedReportingOverflow(by: unit)
            guard !overflow else { return nil }
            values[key] = bytes
        }
        guard let total = values["MemTotal"] else { return nil }
        let available: UInt64
        if let given = values["MemAvailable"] {
            available = given
        } else if let free = values["MemFree"] {
            let (a, o1) = free.addingReportingOverflow(values["Buffers"] ?? 0)
            let (b, o2) = a.addingReportingOverflow(values["Cached"] ?? 0)
            guard !o1, !o2 else { return nil }
            available = b
        } else {
            return nil
        }
        return MemoryInfo(total: total, available: available, swapTotal: values["SwapTotal"] ?? 0, swapFree: values["SwapFree"] ?? 0)
    }

    /// The first three numbers of `/proc/loadavg`, each finite and at most a million.
    static func parseLoadavg(_ text: String) -> LoadAverage? {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).prefix(3).map { Double($0) }
        guard fields.count == 3 else { return nil }
        let numbers = fields.compactMap { $0 }.filter { $0.isFinite && $0 >= 0 && $0 <= 1_000_000 }
        guard numbers.count == 3 else { return nil }
        return LoadAverage(one: numbers[0], five: numbers[1], fifteen: numbers[2])
    }

    /// The first number of `/proc/uptime`: seconds since boot, finite, under 1000 years.
    static func parseUptime(_ text: String) -> Double? {
        guard let first = text.split(whereSeparator: { $0 == " " || $0 == "\n" }).first,
              let seconds = Double(first), seconds.isFinite, seconds >= 0, seconds < 3.2e10 else { return nil }
        return seconds
    }
}
