import FoundationEssentials
import WidgetCore

/// Figure 1: `TimelineScheduler` alone, synchronous (`add`, `advance(to:)`, `deliver`).
///
/// Workload: n instances, each with a timeline of 13 entries 15 minutes apart (phases spread
/// over 900 s, so wake-ups come every second with n/900 instances due) and policy `.atEnd`;
/// every reload is answered at once with the next 3 hours. The clock jumps from one
/// `nextWakeDate` to the next through `hours` simulated hours. An event is one entry change or
/// one reload delivered (≈ 104 per instance per day).
enum SchedulerBench {
    struct Entry: TimelineEntry { let date: Date }

    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    static func timeline(for id: WidgetInstanceID, now: Date) -> AnyTimeline {
        let phase = Double(id.rawValue % 900)
        let sinceSlot = (now.timeIntervalSince(epoch) - phase).truncatingRemainder(dividingBy: 900)
        let base = now - (sinceSlot < 0 ? sinceSlot + 900 : sinceSlot)
        let entries: [any TimelineEntry] = (0...12).map { Entry(date: base + Double($0) * 900) }
        return AnyTimeline(entries: entries, policy: .atEnd)
    }

    /// Returns (events, seconds) for the timed part (the simulated day, after the first timelines).
    static func run(instances n: Int, hours: Double) -> (events: Int, seconds: Double) {
        var scheduler = TimelineScheduler(configuration: SchedulerConfiguration(minimumReloadInterval: 60))
        for _ in 0..<n { _ = scheduler.add(kind: "bench", now: epoch) }
        let first = scheduler.advance(to: epoch)
        for r in first.reloads {
            _ = scheduler.deliver(timeline(for: r.instance, now: epoch), to: r.instance, generation: r.generation, now: epoch)
        }
        let end = epoch + hours * 3600
        var events = 0
        let start = monotonicNanos()
        while let next = scheduler.nextWakeDate, next <= end {
            let changes = scheduler.advance(to: next)
            events += changes.entryChanged.count
            for r in changes.reloads {
                _ = scheduler.deliver(timeline(for: r.instance, now: next), to: r.instance, generation: r.generation, now: next)
                events += 1
            }
        }
        let elapsed = seconds(since: start)
        blackHole(scheduler)
        return (events, elapsed)
    }

    static func measure(into report: Report, quick: Bool) {
        for n in [100, 1_000, 10_000, 100_000] {
            let hours = quick ? (n >= 100_000 ? 1.0 : 3.0) : 24.0
            let (events, secs) = run(instances: n, hours: hours)
            let perSecond = Double(events) / secs
            let workload = "\(n) instances × 13-entry timelines (15 min apart, .atEnd), \(Int(hours)) h simulated; \(events) events"
            report.add(Figure(section: "1", name: "scheduler \(n) inst events/s", value: perSecond, unit: "events/s",
                              workload: workload, target: n == 10_000 ? "≥ 1000000" : nil,
                              met: n == 10_000 ? perSecond >= 1_000_000 : nil))
            report.add(Figure(section: "1", name: "scheduler \(n) inst ns/event", value: secs * 1e9 / Double(events),
                              unit: "ns/event", workload: workload, target: nil, met: nil))
        }
    }
}
