import FoundationEssentials
import WidgetCore

/// The dates of a timeline that projects stored data forward until the next fetch (the
/// leaderboard's recovering health, http-json's ages and relative times).
///
/// By the minute for the first hour — what a user watching the panel sees move, and the dates
/// the panels have always had there — then every 5 minutes until the third hour, every 15
/// until the sixth, and hourly after: a day's refresh (the longest an option allows) needs
/// about 115 entries, within `maximumEntries`, so the timeline reaches the next fetch and its
/// policy can be `.after(next fetch)`. Stopping short instead made the provider ask again
/// when the entries ran out, a reload counted against the daily budget (issue 26, item 5).
/// Each entry is computed at its own date, so what it shows is right at that date; later on
/// it only moves in coarser steps (a hero recovering 0.25 per hour gains 2% of its bar in 5
/// minutes, under one cell of a 20-cell bar).
public enum ProjectionDates {
    /// The step used while less than `until` seconds have passed since the start.
    static let steps: [(until: TimeInterval, step: TimeInterval)] = [(3_600, 60), (3 * 3_600, 300), (6 * 3_600, 900)]
    /// The step after the last of `steps`.
    static let finalStep: TimeInterval = 3_600
    /// Entries in one timeline at most: bounds the work of a timeline (heroes × entries) when
    /// the next fetch is further than a day (a stored wait, a 7-day refresh clamped elsewhere).
    public static let maximumEntries = 120

    /// `start`, then the step boundaries before `end` (at most `maximum` dates in all).
    public static func dates(from start: Date, until end: Date, maximum: Int = maximumEntries) -> [Date] {
        var dates = [start]
        var next = self.next(after: start, from: start)
        while next < end, dates.count < maximum {
            dates.append(next)
            next = self.next(after: next, from: start)
        }
        return dates
    }

    /// The boundary of the step in force at `date` (a timeline begun at `start`) after `date`:
    /// where the entry after `date` falls.
    public static func next(after date: Date, from start: Date) -> Date {
        let elapsed = date.timeIntervalSince(start)
        let step = steps.first { elapsed < $0.until }?.step ?? finalStep
        let seconds = date.timeIntervalSince1970
        return Date(timeIntervalSince1970: (seconds / step).rounded(.down) * step + step)
    }

    /// The policy of a projection from `start` whose last entry is `last`: after the next fetch
    /// `next` when the entries reach it (no reload counted in between), else where the entry
    /// after `last` would fall; never sooner than a minute.
    public static func policy(from start: Date, last: Date?, nextFetch next: Date) -> TimelineReloadPolicy {
        let end = self.next(after: last ?? start, from: start)
        return .after(min(next, max(end, start + 60)))
    }

    /// The timeline of a projection from `start` reaching the next fetch at `next` (`policy`);
    /// `retrying`: that fetch tries a failed one again (a backoff or a server's Retry-After),
    /// so the reload that starts it is a retry and spends no budget — an outage costs nothing.
    public static func timeline<Entry: TimelineEntry>(_ entries: [Entry], from start: Date, nextFetch next: Date,
                                                      retrying: Bool) -> Timeline<Entry> {
        let policy = policy(from: start, last: entries.last?.date, nextFetch: next)
        var timeline = Timeline(entries: entries, policy: policy)
        timeline.policyRetriesFailure = retrying && policy == .after(next)
        return timeline
    }
}
