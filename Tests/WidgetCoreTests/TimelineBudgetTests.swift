import FoundationEssentials
import Testing
import WidgetCore
import WidgetTestSupport

/// Answers the request in flight for `id` (if any) with an empty timeline and `policy`.
private func answer(_ scheduler: inout TimelineScheduler, _ request: ReloadRequest, policy: TimelineReloadPolicy, now: Date) {
    _ = scheduler.deliver(timeline([], policy: policy), to: request.instance, generation: request.generation, now: now)
}

/// Advances to `now` and answers every request started with `policy`; returns the requests.
@discardableResult
private func step(_ scheduler: inout TimelineScheduler, to now: Date, policy: (ReloadRequest) -> TimelineReloadPolicy) -> [ReloadRequest] {
    let reloads = scheduler.advance(to: now).reloads
    for request in reloads { answer(&scheduler, request, policy: policy(request), now: now) }
    return reloads
}

@Suite("TimelineScheduler: the daily budget never hides what the user asked for")
struct TimelineBudgetTests {
    @Test("a WidgetCenter reload answering a user reload is neither counted nor deferred, on every panel, however long the fetch took (issue 26, item 2)")
    func userAnswerIsFree() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5, dailyReloadBudget: 2))
        let board = scheduler.add(kind: "leaderboard", now: testEpoch)
        let hero = scheduler.add(kind: "hero", now: testEpoch)
        step(&scheduler, to: testEpoch) { _ in .after(testEpoch + 600) }
        // Use the budget up: two policy reloads each.
        for minute in [10.0, 20] { step(&scheduler, to: at(minute * 60)) { _ in .after(at(minute * 60 + 600)) } }
        // The sessions' WidgetCenter reloads of an automatic fetch are counted and held back.
        scheduler.requestReload(ofKind: "hero", now: at(1_300))
        #expect(scheduler.advance(to: at(1_300)).reloads.isEmpty)
        #expect(scheduler.status(of: hero)?.heldByBudgetUntil != nil, "the footer can say why")

        // r on the leaderboard: its fetch waits out a server's Retry-After and comes back 10
        // minutes later (before, only within 330 s of the r was it free) as WidgetCenter
        // reloads of both kinds, carrying the user's cause.
        scheduler.requestReload(board, userInitiated: true, now: at(1_310))
        let user = step(&scheduler, to: at(1_310)) { _ in .after(at(4_000)) }
        #expect(user.map(\.reason) == [.user])
        scheduler.requestReload(ofKind: "leaderboard", cause: .answer, now: at(1_910))
        scheduler.requestReload(ofKind: "hero", cause: .answer, now: at(1_910))
        let answers = step(&scheduler, to: at(1_910)) { _ in .never }
        #expect(answers.map(\.instance) == [board, hero], "the new board shows at once on both panels")
        #expect(answers.allSatisfy { $0.reason == .answer })
        #expect(scheduler.status(of: hero)?.heldByBudgetUntil == nil)
        // The system's own WidgetCenter reload soon after an r is counted: the r is no window.
        scheduler.requestReload(ofKind: "hero", now: at(1_920))
        let held = scheduler.advance(to: at(1_920)).reloads
        #expect(held.isEmpty && scheduler.status(of: hero)?.heldByBudgetUntil != nil)
    }

    @Test("a push reloads at once under any daily budget, one a second per panel: a burst coalesces (issue 26, item 3)")
    func pushHasItsOwnBudget() throws {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 300, dailyReloadBudget: 1))
        let id = scheduler.add(kind: "board", now: testEpoch)
        step(&scheduler, to: testEpoch) { _ in .after(at(600)) }
        step(&scheduler, to: at(600)) { _ in .never }  // the budget of 1 is spent
        scheduler.requestReload(ofKind: "board", now: at(700))
        let system = scheduler.advance(to: at(700)).reloads
        #expect(system.isEmpty, "the system's WidgetCenter reload is held by the spent budget")
        scheduler.requestReload(ofKind: "board", cause: .push, now: at(701))
        let first = step(&scheduler, to: at(701)) { _ in .never }
        #expect(first.map(\.reason) == [.push], "a push shows at once, budget or not")
        scheduler.requestReload(ofKind: "board", cause: .push, now: at(701.2))
        scheduler.requestReload(ofKind: "board", cause: .push, now: at(701.4))
        let burst = scheduler.advance(to: at(701.5)).reloads
        #expect(burst.isEmpty, "a burst waits for the push interval")
        let next = try #require(scheduler.nextWakeDate)
        #expect(next == at(702), "one more a second after the last")
        let coalesced = step(&scheduler, to: next) { _ in .never }
        #expect(coalesced.map(\.reason) == [.push] && scheduler.status(of: id)?.heldByBudgetUntil == nil)
    }

    @Test("a two-hour outage spends nothing: each attempt's retry and the reload showing its failure are free (issue 26, item 4)")
    func outageSpendsNothing() throws {
        // Refresh 600, budget 40: before, each attempt cost a policy reload and a WidgetCenter
        // reload, 2 × ~12 attempts = ~24 of 40 in two hours.
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 300, dailyReloadBudget: 40))
        let id = scheduler.add(kind: "leaderboard", now: testEpoch)
        var now = testEpoch
        var attempts = 0
        func answer(_ request: ReloadRequest, retrying: Bool) {
            var next = timeline([], policy: .after(now + 600))
            next.policyRetriesFailure = retrying
            _ = scheduler.deliver(next, to: request.instance, generation: request.generation, now: now)
        }
        var request = try #require(scheduler.advance(to: now).reloads.first)
        answer(request, retrying: true)
        while now < at(7_200) {
            // The attempt's download fails 10 s later: the failure is shown by an outage reload.
            now = try #require(scheduler.nextWakeDate)
            request = try #require(scheduler.advance(to: now).reloads.first)
            #expect(request.reason == .retry)
            answer(request, retrying: true)
            attempts += 1
            now += 10
            scheduler.requestReload(ofKind: "leaderboard", cause: .outage, now: now)
            let shown = scheduler.advance(to: now).reloads
            #expect(shown.map(\.reason) == [.outage], "the failure shows at once")
            if let shown = shown.first { answer(shown, retrying: true) }
        }
        #expect(attempts >= 11)
        // The server is back: 40 policy reloads in a row run unheld.
        for _ in 0..<40 {
            now = try #require(scheduler.nextWakeDate)
            let reloads = scheduler.advance(to: now).reloads
            #expect(scheduler.status(of: id)?.heldByBudgetUntil == nil, "the budget is whole after the outage")
            guard let next = reloads.first else { break }
            answer(next, retrying: false)
        }
    }

    @Test("a seconds clock (computed locally) keeps ticking under any budget")
    func localClockIsExempt() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5, dailyReloadBudget: 5))
        let clock = scheduler.add(kind: "clock", now: testEpoch, pausable: false)
        var now = testEpoch
        var request = scheduler.advance(to: now).reloads[0]
        for _ in 0..<(10 * 60) {  // ten hours of one-minute timelines
            let entries = (0..<60).map { now + Double($0) }
            _ = scheduler.deliver(Timeline(entries: entries.map { TestEntry(date: $0, label: "\($0.timeIntervalSince(testEpoch))") },
                                           policy: .atEnd).erased,
                                  to: clock, generation: request.generation, now: now)
            now = now + 60
            let reloads = scheduler.advance(to: now - 1).reloads
            #expect(reloads.map(\.reason) == [.policy], "the reload at the minute's last second is never held")
            guard let next = reloads.first else { return }
            request = next
            now = now - 1
        }
        #expect(scheduler.status(of: clock)?.heldByBudgetUntil == nil)
    }

    @Test("retries after provider errors are not counted and do not delay later reloads")
    func retriesAreFree() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5, dailyReloadBudget: 3,
                                                               retryBaseDelay: 10, retryMaxDelay: 600))
        let id = scheduler.add(kind: "k", now: testEpoch)
        var request = scheduler.advance(to: testEpoch).reloads[0]
        // A two-hour outage: every answer fails, retries back off.
        var retries = 0
        while true {
            #expect(scheduler.fail(id, generation: request.generation, message: "down", now: scheduler.nextWakeDate ?? testEpoch)
                || retries == 0)
            guard let next = scheduler.nextWakeDate, next < at(7_200) else { break }
            let reloads = scheduler.advance(to: next).reloads
            #expect(reloads.map(\.reason) == [.retry])
            request = reloads[0]
            retries += 1
        }
        #expect(retries >= 8)
        // The server is back: three counted reloads still run on time.
        let now = scheduler.nextWakeDate!
        request = scheduler.advance(to: now).reloads[0]
        answer(&scheduler, request, policy: .after(now + 60), now: now)
        for minute in 1...3 {
            let due = now + Double(minute) * 60
            let reloads = scheduler.advance(to: due).reloads
            #expect(reloads.map(\.reason) == [.policy], "reload \(minute) on time")
            if let next = reloads.first { answer(&scheduler, next, policy: .after(due + 60), now: due) }
        }
    }

    @Test("a wall-clock step is an environment reload: free of the budget, but a retry wait stays")
    func environmentReload() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5, dailyReloadBudget: 1,
                                                               retryBaseDelay: 100, retryMaxDelay: 100))
        let fine = scheduler.add(kind: "a", now: testEpoch)
        let failing = scheduler.add(kind: "b", now: testEpoch)
        let first = scheduler.advance(to: testEpoch).reloads
        answer(&scheduler, first[0], policy: .after(at(10)), now: testEpoch)
        scheduler.fail(failing, generation: first[1].generation, message: "down", now: testEpoch)
        step(&scheduler, to: at(10)) { _ in .after(at(20)) }  // the budget of 1 is used
        #expect(scheduler.status(of: fine)?.heldByBudgetUntil != nil)

        scheduler.requestEnvironmentReloadAll(now: at(30))
        let reloads = scheduler.advance(to: at(30)).reloads
        #expect(reloads == [ReloadRequest(instance: fine, generation: 3, reason: .environment)])
        #expect(!reloads[0].isUserInitiated, "providers do not fetch as for the user")
        let retry = scheduler.status(of: failing)?.nextReload
        #expect(retry.map { $0 >= at(50) } == true, "the failing one keeps its backoff")
    }

    @Test("an environment reload during a request becomes one follow-up, not a user one")
    func environmentFollowUp() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5))
        let id = scheduler.add(kind: "a", now: testEpoch)
        let first = scheduler.advance(to: testEpoch).reloads[0]
        scheduler.requestEnvironmentReload(id, now: at(1))
        scheduler.requestEnvironmentReload(id, now: at(1))
        scheduler.requestReload(id, userInitiated: false, now: at(1))
        answer(&scheduler, first, policy: .never, now: at(2))
        #expect(scheduler.advance(to: at(2)).reloads.map(\.reason) == [.environment])
    }

    @Test("an empty timeline keeps the shown entry and drops the old timeline's entries ahead")
    func emptyTimelineDropsFuture() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5))
        let id = scheduler.add(kind: "a", now: testEpoch)
        let first = scheduler.advance(to: testEpoch).reloads[0]
        _ = scheduler.deliver(timeline([0, 60, 120], policy: .after(at(30))), to: id, generation: first.generation, now: testEpoch)
        let second = scheduler.advance(to: at(30)).reloads[0]
        #expect(scheduler.deliver(timeline([], policy: .atEnd), to: id, generation: second.generation, now: at(30))
            == .accepted(entryChanged: false))
        #expect(shownLabel(scheduler.status(of: id)) == "t0")
        #expect(scheduler.nextWakeDate == at(35), ".atEnd with nothing ahead waits the minimum interval")
        let third = scheduler.advance(to: at(35)).reloads
        #expect(third.map(\.reason) == [.policy])
        answer(&scheduler, third[0], policy: .never, now: at(35))
        #expect(scheduler.advance(to: at(200)).entryChanged.isEmpty, "t60 and t120 never show")
        #expect(shownLabel(scheduler.status(of: id)) == "t0")
    }
}
