import DateTime
import FoundationEssentials
import TerminalUI
import WidgetCore

/// The countdown's timeline: an hour (or the host's minimum interval) ahead, a "done" entry at
/// the end, then `.atEnd`; once done, one entry and `.never`.
///
/// What is left is text that updates itself (`DateText.countdown`): the host draws it at each
/// frame's time and wakes at each minute (each second in the last one) it changes. Entries
/// are kept only where its length changes ("10m" to "9m": the big digits' scale), so an hour
/// is a few entries, not sixty.
public struct CountdownProvider: TimelineProvider {
    public let target: Date
    public let label: String
    /// The zone the target is shown in.
    public let zone: ZoneInfo
    public let now: @Sendable () -> Date

    /// Most minute entries in one timeline (an hour) unless the host asks less often.
    static let minuteEntries = 60

    public init(target: Date, label: String, zone: ZoneInfo, now: @escaping @Sendable () -> Date) {
        self.target = target
        self.label = label
        self.zone = zone
        self.now = now
    }

    public func placeholder(in context: Context) -> CountdownEntry {
        CountdownEntry(date: .distantPast, label: label, remaining: "--", isDone: false, target: "--- -- --- ---- --:--")
    }

    public func snapshot(in context: Context) async -> CountdownEntry {
        entry(at: now())
    }

    public func timeline(in context: Context) async throws -> Timeline<CountdownEntry> {
        let start = now()
        let entries = self.entries(from: start, covering: context.minimumReloadInterval)
        return Timeline(entries: entries, policy: entries.last?.isDone == true && entries.count == 1 ? .never : .atEnd)
    }

    /// The entry at `date`.
    func entry(at date: Date) -> CountdownEntry {
        let left = target.timeIntervalSince(date)
        let (long, short) = Self.describe(target, in: zone)
        var entry = CountdownEntry(date: date, label: label, remaining: CountdownEntry.remainingText(left), isDone: !(left > 0),
                                   target: long, shortTarget: short)
        if target.timeIntervalSince1970.isFinite, abs(target.timeIntervalSince1970) < DateText.maximumSeconds { entry.end = target }
        return entry
    }

    /// The entries from `start`: `start` itself, then whole minutes before the target (at most
    /// an hour of them, or enough to cover `interval`), then, once within the last minute,
    /// each second and the end.
    public func entries(from start: Date, covering interval: TimeInterval = 0) -> [CountdownEntry] {
        var result = [entry(at: start)]
        let left = target.timeIntervalSince(start)
        guard left > 0 else { return result }
        let wanted = interval.isNaN ? 0 : min(max(0, interval) / 60, 10_000).rounded(.up) + 1
        let minuteCount = max(Double(Self.minuteEntries), wanted)
        // Minutes k before the target, k from the largest one after `start` down to 1.
        let firstMinute = min((left / 60).rounded(.up) - 1, 1e12)
        var k = firstMinute
        while k >= 1, firstMinute - k < minuteCount {
            result.append(entry(at: target - k * 60))
            k -= 1
        }
        guard k < 1 else { return result }
        for second in stride(from: 59, through: 1, by: -1) where Double(second) < left {
            result.append(entry(at: target - Double(second)))
        }
        result.append(entry(at: target))
        return Self.keepingChanges(result)
    }

    /// The entries where the view's layout changes, the first and the last (the reload): what
    /// is left is text that updates itself, so only a change of its length (its big digits'
    /// scale) or of "done" needs an entry, not each minute or second.
    static func keepingChanges(_ entries: [CountdownEntry]) -> [CountdownEntry] {
        guard entries.first?.end != nil else { return entries }
        var kept: [CountdownEntry] = []
        for (index, entry) in entries.enumerated() {
            guard let last = kept.last, index != entries.count - 1 else {
                kept.append(entry)
                continue
            }
            if entry.remaining.count != last.remaining.count || entry.isDone != last.isDone { kept.append(entry) }
        }
        return kept
    }

    /// "Thu 31 Dec 2026 23:59" and "31 Dec 23:59" in `zone`.
    static func describe(_ date: Date, in zone: ZoneInfo) -> (String, String) {
        let seconds = date.timeIntervalSince1970
        guard seconds.isFinite, abs(seconds) < 3e11 else { return ("", "") }
        let t = CivilTime(unixSeconds: Int64(seconds.rounded(.down)), offset: zone.offset(at: date).seconds)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let day = "\(t.day) \(CivilTime.monthNames[t.month - 1])", time = "\(two(t.hour)):\(two(t.minute))"
        return ("\(CivilTime.weekdayNames[t.weekday]) \(day) \(t.year) \(time)", "\(day) \(time)")
    }
}
