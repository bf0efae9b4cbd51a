#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import WidgetCore

/// The `system` widget's timeline: one reading of the proc files per timeline, then
/// `.after(interval)`.
///
/// CPU use is the difference between this reading and the previous one, so the provider
/// keeps the previous reading (`SystemHistory`); the first timeline asks again after at most
/// a second so the panel soon shows CPU use. The proc files are read here, on the provider
/// pool, never on the host's loop. Nothing read can crash it: a missing or odd file is named
/// on the panel, and only when no file at all could be read does the timeline fail.
public struct SystemProvider: TimelineProvider {
    /// The proc file system's root (the host's `WidgetContext.proc`; a fake tree in tests).
    public let root: String
    /// Seconds between readings.
    public let interval: TimeInterval
    public let now: @Sendable () -> Date
    private let history = SystemHistory()
    /// Nanoseconds between a preview's two readings.
    static let previewPause = 250_000_000

    public init(root: String, interval: TimeInterval = 2, now: @escaping @Sendable () -> Date) {
        self.root = root
        self.interval = interval.isFinite ? min(max(1, interval), 86_400) : 2
        self.now = now
    }

    /// No file could be read at all.
    public struct Unreadable: Error, CustomStringConvertible {
        public var problems: [String]
        public var description: String { problems.first ?? "no proc files" }
    }

    public func placeholder(in context: Context) -> SystemEntry {
        SystemEntry(date: .distantPast, cpu: 0, memory: MemoryInfo(total: 1, available: 1), load: LoadAverage(one: 0, five: 0, fifteen: 0),
                    uptime: 0)
    }

    public func snapshot(in context: Context) async -> SystemEntry {
        history.record(SystemSample.read(root: root), at: now())
    }

    public func timeline(in context: Context) async throws -> Timeline<SystemEntry> {
        var sample = SystemSample.read(root: root)
        guard !sample.isEmpty else { throw Unreadable(problems: sample.problems) }
        let first = !history.hasPrevious
        if first, context.isPreview, sample.cpu != nil {
            // A preview is one look: a second reading a moment later gives it a CPU figure.
            _ = history.record(sample, at: now())
            var pause = timespec(tv_sec: 0, tv_nsec: Self.previewPause)
            nanosleep(&pause, nil)
            sample = SystemSample.read(root: root)
        }
        let entry = history.record(sample, at: now())
        // The first reading has no CPU use yet: the next one comes sooner.
        let wait = first && entry.cpu == nil && sample.cpu != nil ? min(1, interval) : interval
        return Timeline(entries: [entry], policy: .after(entry.date + wait))
    }
}
