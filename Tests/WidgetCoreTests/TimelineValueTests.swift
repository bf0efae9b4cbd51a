import FoundationEssentials
import Testing
import WidgetCore
import WidgetTestSupport

/// An entry with a relevance, so the scheduler's relevance record is part of what is copied.
private struct Scored: TimelineEntry {
    var date: Date
    var label: String
    var relevance: TimelineEntryRelevance?
}

private let rules = SchedulerConfiguration(minimumReloadInterval: 5, dailyReloadBudget: 6, requestTimeout: 30,
                                           retryBaseDelay: 40, retryMaxDelay: 300)

/// A scheduler with two instances: a fetching one and a local one (a clock: not pausable).
private func fresh() -> TimelineScheduler {
    var scheduler = TimelineScheduler(configuration: rules)
    _ = scheduler.add(kind: "board", now: testEpoch)
    _ = scheduler.add(kind: "clock", now: testEpoch, pausable: false)
    return scheduler
}

/// Step `j` of a fixed script that reaches every part of an instance's record — answers with
/// relevance, failures and their backoff, time-outs (some requests are left unanswered),
/// follow-ups, user and `WidgetCenter` reloads, pausing, the budget — and returns what it
/// observed: the changes, every status, the next wake-up, the relevances.
private func step(_ j: Int, _ scheduler: inout TimelineScheduler) -> String {
    let now = at(Double(j) * 13)
    let ids = scheduler.allInstances
    if j % 7 == 3 { scheduler.requestReload(ids[0], userInitiated: true, now: now) }
    if j % 5 == 2 { scheduler.requestReload(ofKind: "board", now: now) }
    if j % 11 == 6 { scheduler.setAutomaticReloadsPaused(!scheduler.automaticReloadsPaused) }
    let changes = scheduler.advance(to: now)
    var observed = "\(changes)"
    for request in changes.reloads where j % 4 != 1 {
        if request.generation % 3 == 0 {
            observed += " fail:\(scheduler.fail(request.instance, generation: request.generation, message: "down", now: now))"
        } else {
            let entries = (0..<3).map { k in
                Scored(date: now + Double(k * 20), label: "\(j).\(k)",
                       relevance: TimelineEntryRelevance(score: Float((j + k) % 5), duration: k == 1 ? 25 : 0))
            }
            let policy: TimelineReloadPolicy = request.generation % 2 == 0 ? .atEnd : .after(now + 30)
            let delivery = scheduler.deliver(AnyTimeline(entries: entries, policy: policy), to: request.instance,
                                             generation: request.generation, now: now)
            observed += " \(delivery)"
        }
    }
    for id in ids {
        guard let status = scheduler.status(of: id) else { continue }
        observed += " | \((status.entry as? Scored)?.label ?? "-") \(status.isLoading) \(String(describing: status.lastFailure))"
            + " \(status.consecutiveFailures) \(String(describing: status.lastSuccess)) \(String(describing: status.nextReload))"
            + " \(String(describing: status.heldByBudgetUntil)) \(String(describing: scheduler.relevance(of: id, now: now)))"
    }
    return observed + " | wake \(String(describing: scheduler.nextWakeDate))"
}

private let steps = 48

@Suite("Timelines are values")
struct TimelineValueTests {
    @Test("a copy of a scheduler is a scheduler of its own: an answer given to the copy is not the original's")
    func copyIsIndependent() {
        var original = TimelineScheduler(configuration: rules)
        let id = original.add(kind: "board", now: testEpoch)
        let request = original.advance(to: testEpoch).reloads[0]
        var copy = original
        _ = copy.deliver(timeline([0, 60], policy: .atEnd), to: id, generation: request.generation, now: testEpoch)
        #expect((copy.status(of: id)?.entry as? TestEntry)?.label == "t0")
        #expect(original.status(of: id)?.entry == nil && original.status(of: id)?.isLoading == true,
                "the original still waits for its answer")
        #expect(copy.nextWakeDate == at(60) && original.nextWakeDate == at(30), "each has its own deadlines")
        // And the other way round: the original's time-out is not the copy's.
        _ = original.advance(to: at(30))
        #expect(original.status(of: id)?.lastFailure != nil)
        #expect(copy.status(of: id)?.lastFailure == nil)
    }

    @Test("a copy taken at any step goes on exactly as the original would: every field of a record is copied")
    func copyGoesOnAsTheOriginal() {
        // The script run straight through, never copied.
        var straight = fresh()
        let reference = (0..<steps).map { step($0, &straight) }
        for k in 0..<steps {
            var original = fresh()
            for j in 0..<k { _ = step(j, &original) }
            var copy = original  // copied on its first change below: `original` is still alive
            let copied = (k..<steps).map { step($0, &copy) }
            #expect(copied == Array(reference[k...]), "the copy taken at step \(k) went another way")
            let kept = (k..<steps).map { step($0, &original) }
            #expect(kept == Array(reference[k...]), "the original, after the copy at step \(k), went another way")
        }
    }

    @Test("a copy of the timelines' state is independent too: a reload of the copy starts a call only there")
    func stateCopyIsIndependent() {
        var original = TimelineState(configuration: rules)
        let provider = AnyTimelineProvider(StaticProvider(timeline: Timeline(entries: [TestEntry(date: testEpoch, label: "x")],
                                                                             policy: .never)))
        let id = original.add(kind: "board", family: .small, size: .zero, provider: provider, now: testEpoch)
        let first = original.takeOutput()
        let started = first.effects.compactMap { if case .start(let call) = $0 { call.request } else { nil } }
        #expect(started.map(\.instance) == [id])
        original.receive(ProviderAnswer(request: started[0], result: .success(AnyTimeline(entries: [TestEntry(date: testEpoch, label: "x")],
                                                                                          policy: .never))), now: testEpoch)
        _ = original.takeOutput()
        var copy = original
        copy.reload(id, userInitiated: true, now: at(1))
        #expect(copy.takeOutput().effects.contains { if case .start = $0 { true } else { false } })
        #expect(copy.runningProviderCalls == 1)
        #expect(original.runningProviderCalls == 0 && original.takeOutput().effects.isEmpty, "the original decided nothing")
        #expect(original.status(of: id)?.isLoading == false && copy.status(of: id)?.isLoading == true)
    }
}

/// A provider that always answers the same timeline.
private struct StaticProvider: TimelineProvider {
    let timeline: Timeline<TestEntry>
    func placeholder(in context: Context) -> TestEntry { TestEntry(date: .distantPast, label: "placeholder") }
    func snapshot(in context: Context) async -> TestEntry { timeline.entries[0] }
    func timeline(in context: Context) async throws -> Timeline<TestEntry> { timeline }
}
