import FoundationEssentials
import Testing
import WidgetCore
import WidgetTestSupport

/// Issue 26, item 7: after the wall clock is set, the scheduler's waits and history move with
/// it (`TimelineScheduler.rebase`), so nothing waits the size of the step. Each of these failed
/// before: the backoff and the budget's starts stayed in the old clock's time.
@Suite("TimelineScheduler: a step of the wall clock moves its waits and history with it")
struct ClockStepTests {
    @Test("a failing widget's retry wait stays its length after the clock is set back an hour, not an hour more")
    func backoffFollowsTheStep() throws {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5, retryBaseDelay: 60, retryMaxDelay: 600))
        let id = scheduler.add(kind: "board", now: testEpoch)
        let first = try #require(scheduler.advance(to: testEpoch).reloads.first)
        let failed = scheduler.fail(id, generation: first.generation, message: "down", now: at(1))
        #expect(failed)
        let retry = try #require(scheduler.nextWakeDate)
        let wait = retry.timeIntervalSince(at(1))
        #expect(wait > 0 && wait <= 120, "the first retry waits about its base delay (\(wait) s)")

        // Ten seconds later the clock is set back an hour: the new now is at(11) - 3600.
        let now = at(11 - 3_600)
        // What the dashboard does on `.clockSet(step:)` (`TimelineState.reloadAllForEnvironment`).
        scheduler.rebase(by: -3_600)
        scheduler.requestEnvironmentReloadAll(now: now)
        let due = try #require(scheduler.nextWakeDate)
        #expect(abs(due.timeIntervalSince(retry - 3_600)) < 0.001,
                "the retry comes when it would have, in the new clock's time: \(due.timeIntervalSince(now)) s from now")
        let early = scheduler.advance(to: due - 1).reloads
        #expect(early.isEmpty, "the environment reload keeps the retry wait (it is not the user's)")
        let reloads = scheduler.advance(to: due).reloads
        #expect(reloads.map(\.reason) == [.retry], "one reload: the retry it waited for, which the environment's joins")
    }

    @Test("the daily budget counts a day from each reload in the new clock's time: set back, it is not held a day and the step")
    func budgetFollowsTheStep() throws {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5, dailyReloadBudget: 2))
        let id = scheduler.add(kind: "feed", now: testEpoch)
        var request = try #require(scheduler.advance(to: testEpoch).reloads.first)
        // Two policy reloads spend the budget of 2.
        for minute in [0.0, 10, 20] {
            _ = scheduler.deliver(timeline([], policy: .after(at(minute * 60 + 600))), to: id, generation: request.generation, now: at(minute * 60))
            guard minute < 20 else { break }
            request = try #require(scheduler.advance(to: at(minute * 60 + 600)).reloads.first)
        }
        let held = try #require(scheduler.status(of: id)?.nextReload)
        #expect(held > at(86_000), "the third policy reload waits for the first to be a day old")
        scheduler.rebase(by: -7_200)
        let after = try #require(scheduler.status(of: id)?.nextReload)
        #expect(abs(after.timeIntervalSince(held - 7_200)) < 0.001, "a day from the first reload, in the new clock's time")
    }

    @Test("a request in flight times out after its timeout in the new clock's time, and entries keep their dates")
    func timeoutAndEntries() throws {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5, requestTimeout: 30))
        let id = scheduler.add(kind: "k", now: testEpoch)
        let first = try #require(scheduler.advance(to: testEpoch).reloads.first)
        _ = scheduler.deliver(timeline([0, 7_000], policy: .after(at(600))), to: id, generation: first.generation, now: testEpoch)
        scheduler.requestReload(id, userInitiated: true, now: at(600))
        let user = scheduler.advance(to: at(600)).reloads
        #expect(user.map(\.reason) == [.user])
        scheduler.rebase(by: -3_600)
        // The request started at 600 (now -3000 in the new time) times out 30 s later.
        let changes = scheduler.advance(to: at(630 - 3_600))
        #expect(changes.timedOut == [id], "timed out at its deadline moved by the step")
        // The second entry is dated 7000 in wall time: it comes then, not moved.
        let before = scheduler.advance(to: at(6_999)).entryChanged
        #expect(before.isEmpty)
        let then = scheduler.advance(to: at(7_000)).entryChanged
        #expect(then == [id])
    }
}
