import FoundationEssentials
import Testing
import WidgetCore
import WidgetTestSupport

private struct ScoredEntry: TimelineEntry {
    var date: Date
    var relevance: TimelineEntryRelevance?
}

private func scored(_ items: [(TimeInterval, Float, TimeInterval)]) -> AnyTimeline {
    Timeline(entries: items.map { ScoredEntry(date: at($0.0), relevance: TimelineEntryRelevance(score: $0.1, duration: $0.2)) },
             policy: .never).erased
}

@Suite("TimelineScheduler: relevance as WidgetKit means it")
struct RelevanceTests {
    @Test("scores compare within one provider: each provider's highest score is 1, whatever its scale")
    func normalisedPerProvider() {
        var scheduler = TimelineScheduler()
        let small = scheduler.add(kind: "small-scale", now: testEpoch)
        let large = scheduler.add(kind: "large-scale", now: testEpoch)
        let requests = scheduler.advance(to: testEpoch).reloads
        _ = scheduler.deliver(scored([(0, 0.5, 0), (60, 1, 0)]), to: small, generation: requests[0].generation, now: testEpoch)
        _ = scheduler.deliver(scored([(0, 50, 0), (60, 100, 0)]), to: large, generation: requests[1].generation, now: testEpoch)
        #expect(scheduler.relevance(of: small, now: testEpoch) == 0.5)
        #expect(scheduler.relevance(of: large, now: testEpoch) == 0.5)
        _ = scheduler.advance(to: at(60))
        #expect(scheduler.relevance(of: small, now: at(60)) == 1)
        #expect(scheduler.relevance(of: large, now: at(60)) == 1)
    }

    @Test("relevance is relative within a kind, not a panel: of two heroes, the healthier one is more relevant (issue 26, item 6)")
    func normalisedPerKind() {
        var scheduler = TimelineScheduler()
        let weak = scheduler.add(kind: "hero", now: testEpoch)
        let strong = scheduler.add(kind: "hero", now: testEpoch)
        let clock = scheduler.add(kind: "clock", now: testEpoch)
        let requests = scheduler.advance(to: testEpoch).reloads
        // Each panel's own history holds one score: normalised per instance, both would be 1.
        _ = scheduler.deliver(scored([(0, 0.25, 0)]), to: weak, generation: requests[0].generation, now: testEpoch)
        _ = scheduler.deliver(scored([(0, 1, 0)]), to: strong, generation: requests[1].generation, now: testEpoch)
        _ = scheduler.deliver(scored([(0, 30, 0)]), to: clock, generation: requests[2].generation, now: testEpoch)
        #expect(scheduler.relevance(of: weak, now: testEpoch) == 0.25)
        #expect(scheduler.relevance(of: strong, now: testEpoch) == 1)
        #expect(scheduler.relevance(of: clock, now: testEpoch) == 1, "another kind has its own scale")
    }

    @Test("the highest score is remembered across timelines; 0 or less is not relevant")
    func acrossTimelines() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 1))
        let id = scheduler.add(kind: "k", now: testEpoch)
        let first = scheduler.advance(to: testEpoch).reloads[0]
        _ = scheduler.deliver(scored([(0, 8, 0)]), to: id, generation: first.generation, now: testEpoch)
        scheduler.requestReload(id, userInitiated: true, now: at(1))
        let second = scheduler.advance(to: at(1)).reloads[0]
        _ = scheduler.deliver(scored([(1, 2, 0)]), to: id, generation: second.generation, now: at(1))
        #expect(scheduler.relevance(of: id, now: at(1)) == 0.25)
        scheduler.requestReload(id, userInitiated: true, now: at(2))
        let third = scheduler.advance(to: at(2)).reloads[0]
        _ = scheduler.deliver(scored([(2, -3, 0)]), to: id, generation: third.generation, now: at(2))
        #expect(scheduler.relevance(of: id, now: at(2)) == 0)
    }

    @Test("duration is how long after the entry's date the score counts; 0 sets no limit")
    func duration() {
        var scheduler = TimelineScheduler()
        let timed = scheduler.add(kind: "timed", now: testEpoch)
        let open = scheduler.add(kind: "open", now: testEpoch)
        let plain = scheduler.add(kind: "plain", now: testEpoch)
        let requests = scheduler.advance(to: testEpoch).reloads
        _ = scheduler.deliver(scored([(0, 1, 30)]), to: timed, generation: requests[0].generation, now: testEpoch)
        _ = scheduler.deliver(scored([(0, 1, 0)]), to: open, generation: requests[1].generation, now: testEpoch)
        _ = scheduler.deliver(timeline([0], policy: .never), to: plain, generation: requests[2].generation, now: testEpoch)
        #expect(scheduler.relevance(of: timed, now: at(29)) == 1)
        #expect(scheduler.relevance(of: timed, now: at(30)) == nil, "its duration has run out")
        #expect(scheduler.relevance(of: open, now: at(86_400)) == 1)
        #expect(scheduler.relevance(of: plain, now: testEpoch) == nil, "no opinion")
    }
}
