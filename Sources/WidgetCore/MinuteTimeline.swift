import FoundationEssentials

/// A moment on a whole minute: what the host shows by the minute itself (the status bar's
/// clock), with nothing of a widget's in it.
public struct MinuteEntry: TimelineEntry, Equatable, Codable {
    public var date: Date
    public init(date: Date) { self.date = date }
}

/// A provider of whole minutes, for the host's own use: the status bar's clock is a timeline
/// in the scheduler like any panel's, so it wakes the loop exactly when the panels' minute
/// entries do, and costs nothing in between — without the host borrowing a widget's provider.
///
/// Each timeline starts at the minute that holds now and has at least 60 entries (more when
/// the host may not ask again within an hour: `minimumReloadInterval`); `.atEnd`.
public struct MinuteTimelineProvider: TimelineProvider {
    /// Where now comes from (the host's clock).
    public let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date) { self.now = now }

    public func placeholder(in context: Context) -> MinuteEntry { MinuteEntry(date: .distantPast) }

    public func snapshot(in context: Context) async -> MinuteEntry { entries(from: now()).first! }

    public func timeline(in context: Context) async throws -> Timeline<MinuteEntry> {
        Timeline(entries: entries(from: now(), covering: context.minimumReloadInterval), policy: .atEnd)
    }

    /// The minutes from the one that holds `start`, enough to reach `interval` seconds ahead.
    public func entries(from start: Date, covering interval: TimeInterval = 0) -> [MinuteEntry] {
        // Bounded before the conversion: a NaN or infinite interval must not trap.
        let steps = interval.isNaN ? 0 : min(max(0, interval) / 60, 100_000)
        let count = min(max(60, Int64(steps.rounded(.up)) + 1), 100_000)
        let seconds = Int64(start.timeIntervalSince1970.rounded(.down))
        let first = (seconds >= 0 ? seconds / 60 : (seconds - 59) / 60) * 60
        return (0..<count).map { MinuteEntry(date: Date(timeIntervalSince1970: TimeInterval(first + $0 * 60))) }
    }
}
