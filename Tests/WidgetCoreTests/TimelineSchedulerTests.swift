import FoundationEssentials
import Testing
import WidgetCore
import WidgetTestSupport

/// A scheduler with one instance whose first request has been started at `testEpoch`.
private func started(
    _ configuration: SchedulerConfiguration = .init(minimumReloadInterval: 5, requestTimeout: 30, retryBaseDelay: 10, retryMaxDelay: 300)
) -> (TimelineScheduler, WidgetInstanceID, ReloadRequest) {
    var scheduler = TimelineScheduler(configuration: configuration)
    let id = scheduler.add(kind: "test", now: testEpoch)
    let changes = scheduler.advance(to: testEpoch)
    let request = changes.reloads[0]
    return (scheduler, id, request)
}

@Suite("TimelineScheduler: entries")
struct SchedulerEntryTests {
    @Test("a new instance asks for its first timeline at once, and shows nothing but its placeholder")
    func firstRequest() {
        var scheduler = TimelineScheduler()
        let id = scheduler.add(kind: "clock", now: testEpoch)
        #expect(scheduler.nextWakeDate == testEpoch)
        let changes = scheduler.advance(to: testEpoch)
        #expect(changes.reloads == [ReloadRequest(instance: id, generation: 1, reason: .initial)])
        #expect(scheduler.status(of: id)?.entry == nil)
        #expect(scheduler.status(of: id)?.isLoading == true)
    }

    @Test("the current entry is the latest whose date has come, never one early")
    func neverEarly() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0, 60, 120], policy: .never), to: id, generation: request.generation, now: testEpoch)
        #expect(shownLabel(scheduler.status(of: id)) == "t0")
        #expect(scheduler.nextWakeDate == at(60))

        #expect(scheduler.advance(to: at(59.999)).entryChanged.isEmpty)
        #expect(shownLabel(scheduler.status(of: id)) == "t0")

        #expect(scheduler.advance(to: at(60)).entryChanged == [id])
        #expect(shownLabel(scheduler.status(of: id)) == "t60")

        // Waking late (a machine that slept) jumps to the right entry in one change.
        #expect(scheduler.advance(to: at(500)).entryChanged == [id])
        #expect(shownLabel(scheduler.status(of: id)) == "t120")
        #expect(scheduler.nextWakeDate == nil)
    }

    @Test("entries are sorted by date, equal dates keep the provider's order")
    func sorted() {
        let (initial, id, request) = started()
        var scheduler = initial
        let entries = [TestEntry(date: at(20), label: "b"), TestEntry(date: at(10), label: "a"),
                       TestEntry(date: at(20), label: "c")]
        _ = scheduler.deliver(Timeline(entries: entries, policy: .never).erased, to: id, generation: request.generation, now: testEpoch)
        #expect(shownLabel(scheduler.status(of: id)) == nil, "nothing has come yet")
        _ = scheduler.advance(to: at(10))
        #expect(shownLabel(scheduler.status(of: id)) == "a")
        _ = scheduler.advance(to: at(20))
        #expect(shownLabel(scheduler.status(of: id)) == "c", "the last of equal dates wins")
    }

    @Test("entries already past when the timeline arrives collapse to the newest of them")
    func pastCollapse() {
        let (initial, id, request) = started(.init(requestTimeout: 300))
        var scheduler = initial
        _ = scheduler.advance(to: at(100))
        let result = scheduler.deliver(timeline([-50, 10, 90, 200], policy: .never), to: id, generation: request.generation, now: at(100))
        #expect(result == .accepted(entryChanged: true))
        #expect(shownLabel(scheduler.status(of: id)) == "t90")
        #expect(scheduler.nextWakeDate == at(200))
        #expect(scheduler.advance(to: at(200)).entryChanged == [id])
        #expect(shownLabel(scheduler.status(of: id)) == "t200")
    }

    @Test("a timeline whose entries are all ahead keeps the previous entry until the first comes")
    func futureOnlyKeepsPrevious() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0], policy: .after(at(30))), to: id, generation: request.generation, now: testEpoch)
        let second = scheduler.advance(to: at(30)).reloads[0]
        #expect(scheduler.deliver(timeline([100], policy: .never), to: id, generation: second.generation, now: at(30)) == .accepted(entryChanged: false))
        #expect(shownLabel(scheduler.status(of: id)) == "t0")
        _ = scheduler.advance(to: at(100))
        #expect(shownLabel(scheduler.status(of: id)) == "t100")
    }

    @Test("an empty timeline keeps the entry shown")
    func emptyKeeps() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0], policy: .after(at(10))), to: id, generation: request.generation, now: testEpoch)
        let next = scheduler.advance(to: at(10)).reloads[0]
        #expect(scheduler.deliver(timeline([], policy: .never), to: id, generation: next.generation, now: at(10)) == .accepted(entryChanged: false))
        #expect(shownLabel(scheduler.status(of: id)) == "t0")
    }
}

@Suite("TimelineScheduler: reload policies")
struct SchedulerPolicyTests {
    @Test(".atEnd asks for a new timeline when the last entry's date comes")
    func atEnd() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0, 60, 120], policy: .atEnd), to: id, generation: request.generation, now: testEpoch)
        #expect(scheduler.advance(to: at(119)).reloads.isEmpty)
        let changes = scheduler.advance(to: at(120))
        #expect(changes.entryChanged == [id])
        #expect(changes.reloads.map(\.reason) == [.policy])
        #expect(changes.reloads.map(\.generation) == [2])
    }

    @Test(".after(date) asks at that date even with entries left")
    func after() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0, 60, 120, 180], policy: .after(at(90))), to: id, generation: request.generation, now: testEpoch)
        #expect(scheduler.advance(to: at(89)).reloads.isEmpty)
        let changes = scheduler.advance(to: at(90))
        #expect(changes.reloads.map(\.instance) == [id])
        #expect(shownLabel(scheduler.status(of: id)) == "t60", "entries keep advancing while the request runs")
        _ = scheduler.advance(to: at(120))
        #expect(shownLabel(scheduler.status(of: id)) == "t120")
    }

    @Test(".never asks again only when requested")
    func never() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0], policy: .never), to: id, generation: request.generation, now: testEpoch)
        #expect(scheduler.nextWakeDate == nil)
        #expect(scheduler.advance(to: at(86_400 * 7)).isEmpty)
        scheduler.requestReload(id, userInitiated: false, now: at(86_400 * 7))
        #expect(scheduler.advance(to: at(86_400 * 7)).reloads.map(\.reason) == [.widgetCenter])
    }

    @Test("a reload date already past waits the minimum interval instead of looping")
    func pastDateWaits() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0], policy: .after(at(-10))), to: id, generation: request.generation, now: testEpoch)
        #expect(scheduler.nextWakeDate == at(5))
        #expect(scheduler.advance(to: at(4.9)).reloads.isEmpty)
        #expect(scheduler.advance(to: at(5)).reloads.count == 1)
    }

    @Test(".atEnd with nothing ahead waits the minimum interval")
    func atEndNothingAhead() {
        let (initial, id, request) = started(.init(requestTimeout: 300))
        var scheduler = initial
        _ = scheduler.advance(to: at(100))
        _ = scheduler.deliver(timeline([0, 50], policy: .atEnd), to: id, generation: request.generation, now: at(100))
        #expect(scheduler.nextWakeDate == at(105))
        let (initial2, id2, request2) = started()
        var scheduler2 = initial2
        _ = scheduler2.deliver(timeline([], policy: .atEnd), to: id2, generation: request2.generation, now: testEpoch)
        #expect(scheduler2.nextWakeDate == at(5))
    }

    @Test("a policy date sooner than the minimum interval after the last reload is moved to it")
    func policyKeepsMinimumInterval() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.advance(to: at(2))
        _ = scheduler.deliver(timeline([0], policy: .after(at(3))), to: id, generation: request.generation, now: at(2))
        #expect(scheduler.nextWakeDate == at(5), "the last reload started at 0; the interval is 5 s")
    }
}

@Suite("TimelineScheduler: answers, timeouts and retries")
struct SchedulerAnswerTests {
    @Test("an answer for an older generation is dropped")
    func staleGenerationDropped() {
        let (initial, id, first) = started()
        var scheduler = initial
        // The first request times out; the retry starts generation 2.
        _ = scheduler.advance(to: at(30))
        let retryDate = scheduler.nextWakeDate!
        let retry = scheduler.advance(to: retryDate).reloads[0]
        #expect(retry.generation == 2)
        #expect(scheduler.deliver(timeline([0], policy: .never), to: id, generation: first.generation, now: retryDate) == .stale)
        #expect(scheduler.status(of: id)?.entry == nil)
        #expect(scheduler.deliver(timeline([0], policy: .never), to: id, generation: retry.generation, now: retryDate) == .accepted(entryChanged: true))
    }

    @Test("one answer per request: a second answer is dropped")
    func oneAnswer() {
        let (initial, id, request) = started()
        var scheduler = initial
        #expect(scheduler.deliver(timeline([0], policy: .never), to: id, generation: request.generation, now: testEpoch) == .accepted(entryChanged: true))
        #expect(scheduler.deliver(timeline([1], policy: .never), to: id, generation: request.generation, now: testEpoch) == .stale)
        #expect(scheduler.fail(id, generation: request.generation, message: "late", now: testEpoch) == false)
        #expect(scheduler.status(of: id)?.lastFailure == nil)
    }

    @Test("a request unanswered within the timeout fails: the entry stays, the error is kept")
    func timeout() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0], policy: .after(at(60))), to: id, generation: request.generation, now: testEpoch)
        _ = scheduler.advance(to: at(60))
        #expect(scheduler.nextWakeDate == at(90), "the timeout is the next deadline")
        let changes = scheduler.advance(to: at(90))
        #expect(changes.timedOut == [id])
        let status = scheduler.status(of: id)
        #expect(shownLabel(status) == "t0")
        #expect(status?.lastFailure == ReloadFailure(message: "timed out after 30 s", date: at(90)))
        #expect(status?.isLoading == false)
        #expect(status?.consecutiveFailures == 1)
    }

    @Test("a provider that takes longer than the host's timeout (an extension's requestSeconds) times out at its own; a shorter one at the host's")
    func providerTimeout() {
        var scheduler = TimelineScheduler(configuration: .init(requestTimeout: 30))
        let slow = scheduler.add(kind: "ext/slow", now: testEpoch, requestTimeout: 62)
        let quick = scheduler.add(kind: "ext/quick", now: testEpoch, requestTimeout: 12)
        #expect(scheduler.advance(to: testEpoch).reloads.count == 2)
        #expect(scheduler.advance(to: at(30)).timedOut == [quick], "the host's 30 s for one that asks for less")
        #expect(!scheduler.advance(to: at(61)).timedOut.contains(slow))
        #expect(scheduler.advance(to: at(62)).timedOut == [slow])
        #expect(scheduler.status(of: slow)?.lastFailure == ReloadFailure(message: "timed out after 62 s", date: at(62)))
    }

    @Test("retries back off exponentially with jitter, capped, and success resets them")
    func backoff() {
        let (initial, id, request) = started(.init(minimumReloadInterval: 1, requestTimeout: 30, retryBaseDelay: 10, retryMaxDelay: 100))
        var scheduler = initial
        var now = testEpoch
        var current = request
        var delays: [TimeInterval] = []
        for _ in 0..<8 {
            scheduler.fail(id, generation: current.generation, message: "server answered 500", now: now)
            let due = scheduler.nextWakeDate!
            delays.append(due.timeIntervalSince(now))
            now = due
            current = scheduler.advance(to: now).reloads[0]
            #expect(current.reason == .retry)
        }
        let ceilings: [TimeInterval] = [10, 20, 40, 80, 100, 100, 100, 100]
        for (delay, ceiling) in zip(delays, ceilings) {
            #expect(delay >= ceiling / 2 && delay <= ceiling, "delay \(delay) outside [\(ceiling / 2), \(ceiling)]")
        }
        #expect(Set(delays).count > 4, "jitter spreads the delays")
        #expect(scheduler.status(of: id)?.consecutiveFailures == 8)
        #expect(scheduler.status(of: id)?.lastFailure?.message == "server answered 500")

        _ = scheduler.deliver(timeline([0], policy: .never), to: id, generation: current.generation, now: now)
        #expect(scheduler.status(of: id)?.consecutiveFailures == 0)
        #expect(scheduler.status(of: id)?.lastFailure == nil)
    }

    @Test("the same seed gives the same retry schedule")
    func reproducibleJitter() {
        func schedule() -> [Date] {
            let (initial, id, request) = started()
            var scheduler = initial
            var current = request
            var dates: [Date] = []
            var now = testEpoch
            for _ in 0..<4 {
                scheduler.fail(id, generation: current.generation, message: "x", now: now)
                now = scheduler.nextWakeDate!
                dates.append(now)
                current = scheduler.advance(to: now).reloads[0]
            }
            return dates
        }
        #expect(schedule() == schedule())
    }

    @Test("a user reload cuts a retry wait short; a system reload does not")
    func userCutsBackoff() {
        let (initial, id, request) = started()
        var scheduler = initial
        scheduler.fail(id, generation: request.generation, message: "refused", now: at(1))
        let retryAt = scheduler.nextWakeDate!
        #expect(retryAt >= at(6))
        scheduler.requestReload(id, userInitiated: false, now: at(2))
        #expect(scheduler.nextWakeDate == retryAt)
        #expect(scheduler.advance(to: at(2)).reloads.isEmpty)
        scheduler.requestReload(id, userInitiated: true, now: at(2))
        let changes = scheduler.advance(to: at(2))
        #expect(changes.reloads.map(\.reason) == [.user])
        #expect(changes.reloads.first?.isUserInitiated == true)
    }
}

@Suite("TimelineScheduler: requests, budgets and coalescing")
struct SchedulerRequestTests {
    @Test("reloads asked for while one is in flight coalesce into one follow-up")
    func coalesce() {
        let (initial, id, request) = started()
        var scheduler = initial
        for _ in 0..<5 { scheduler.requestReload(id, userInitiated: false, now: at(1)) }
        #expect(scheduler.advance(to: at(1)).reloads.isEmpty, "nothing starts while one is in flight")
        _ = scheduler.deliver(timeline([0], policy: .never), to: id, generation: request.generation, now: at(1))
        // The follow-up starts at once: no WidgetCenter reload ran in the last interval.
        #expect(scheduler.nextWakeDate == at(1))
        let changes = scheduler.advance(to: at(1))
        #expect(changes.reloads.map(\.reason) == [.widgetCenter])
        _ = scheduler.deliver(timeline([1], policy: .never), to: id, generation: changes.reloads[0].generation, now: at(2))
        #expect(scheduler.nextWakeDate == nil, "exactly one follow-up")
    }

    @Test("a user reload during a request becomes a user follow-up that starts at once")
    func userFollowUp() {
        let (initial, id, request) = started()
        var scheduler = initial
        scheduler.requestReload(id, userInitiated: false, now: at(1))
        scheduler.requestReload(id, userInitiated: true, now: at(1))
        _ = scheduler.deliver(timeline([0], policy: .never), to: id, generation: request.generation, now: at(2))
        #expect(scheduler.advance(to: at(2)).reloads.map(\.reason) == [.user])
    }

    @Test("WidgetCenter reloads may come in a short burst, then one per interval; user reloads are exempt")
    func minimumInterval() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0], policy: .never), to: id, generation: request.generation, now: at(1))
        // Data arriving right after a fetch, from several sessions at once, shows at once...
        for second in 2...4 {
            scheduler.requestReload(id, userInitiated: false, now: at(TimeInterval(second)))
            let reloads = scheduler.advance(to: at(TimeInterval(second))).reloads
            #expect(reloads.map(\.reason) == [.widgetCenter], "reload at \(second) s")
            _ = scheduler.deliver(timeline([], policy: .never), to: id, generation: reloads[0].generation, now: at(TimeInterval(second)))
        }
        // ...but a widget asking again and again gets one reload per interval.
        scheduler.requestReload(id, userInitiated: false, now: at(4.5))
        #expect(scheduler.advance(to: at(4.5)).reloads.isEmpty)
        #expect(scheduler.nextWakeDate == at(7), "5 s after the first of the last three")
        scheduler.requestReload(id, userInitiated: true, now: at(5))
        #expect(scheduler.advance(to: at(5)).reloads.map(\.reason) == [.user])
    }

    @Test("the burst grows with a kind's panels: six panels whose downloads finish together are six kind reloads, none held; a seventh is")
    func burstPerKind() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5, requestTimeout: 30))
        let ids = (0..<6).map { _ in scheduler.add(kind: "feed", now: at(0)) }
        for request in scheduler.advance(to: at(0)).reloads {
            _ = scheduler.deliver(timeline([0], policy: .never), to: request.instance, generation: request.generation, now: at(0))
        }
        // Each panel's download ends and its delegate reloads the kind (every panel of it).
        for panel in 0..<6 {
            let now = at(1 + Double(panel) / 10)
            scheduler.requestReload(ofKind: "feed", now: now)
            let reloads = scheduler.advance(to: now).reloads
            #expect(Set(reloads.map(\.instance)) == Set(ids), "download \(panel + 1): every panel reloads at once")
            for request in reloads {
                _ = scheduler.deliver(timeline([], policy: .never), to: request.instance, generation: request.generation, now: now)
            }
        }
        // A seventh within the interval is a loop, not a burst: held.
        scheduler.requestReload(ofKind: "feed", now: at(2))
        #expect(scheduler.advance(to: at(2)).reloads.isEmpty)
        #expect(scheduler.nextWakeDate == at(6), "5 s after the first of the last six")
    }

    @Test("WidgetCenter reloads that follow a user reload are not held back, however many")
    func centerAfterUser() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0], policy: .never), to: id, generation: request.generation, now: at(1))
        scheduler.requestReload(id, userInitiated: true, now: at(1))
        let user = scheduler.advance(to: at(1)).reloads
        #expect(user.map(\.reason) == [.user])
        _ = scheduler.deliver(timeline([], policy: .never), to: id, generation: user[0].generation, now: at(1))
        // The data the user asked for arrives as WidgetCenter reloads (several sessions, say).
        for step in 1...5 {
            let now = at(1 + Double(step) / 10)
            scheduler.requestReload(id, userInitiated: false, now: now)
            let reloads = scheduler.advance(to: now).reloads
            #expect(reloads.map(\.reason) == [.widgetCenter], "reload \(step) right away")
            _ = scheduler.deliver(timeline([], policy: .never), to: id, generation: reloads[0].generation, now: now)
        }
    }

    @Test("the daily budget defers system reloads by 24 hours from the oldest; user reloads still run")
    func dailyBudget() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 1, dailyReloadBudget: 3))
        let id = scheduler.add(kind: "k", now: testEpoch)
        var request = scheduler.advance(to: testEpoch).reloads[0]
        #expect(request.reason == .initial, "the first timeline is exempt")
        var starts: [Date] = []
        var now = testEpoch
        for _ in 0..<3 {
            _ = scheduler.deliver(timeline([], policy: .after(now + 60)), to: id, generation: request.generation, now: now)
            now = scheduler.nextWakeDate!
            request = scheduler.advance(to: now).reloads[0]
            starts.append(now)
        }
        _ = scheduler.deliver(timeline([], policy: .after(now + 60)), to: id, generation: request.generation, now: now)
        #expect(scheduler.nextWakeDate == starts[0] + 86_400, "the 4th system reload waits for the window")

        scheduler.requestReload(id, userInitiated: true, now: now + 1)
        let user = scheduler.advance(to: now + 1).reloads
        #expect(user.map(\.reason) == [.user])
    }

    @Test("pausing holds reloads the system would start, entries still advance; resuming runs them")
    func pause() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0, 30, 60], policy: .after(at(40))), to: id, generation: request.generation, now: testEpoch)
        scheduler.setAutomaticReloadsPaused(true)
        let changes = scheduler.advance(to: at(60))
        #expect(changes.reloads.isEmpty)
        #expect(shownLabel(scheduler.status(of: id)) == "t60")
        #expect(scheduler.nextWakeDate == nil, "a paused dashboard has nothing to wake for")
        scheduler.requestReload(id, userInitiated: true, now: at(61))
        #expect(scheduler.advance(to: at(61)).reloads.map(\.reason) == [.user], "the user can still reload")
    }

    @Test("an instance that is not pausable (a clock) keeps reloading while paused")
    func notPausable() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 1))
        let clock = scheduler.add(kind: "clock", now: testEpoch, pausable: false)
        let board = scheduler.add(kind: "leaderboard", now: testEpoch)
        for request in scheduler.advance(to: testEpoch).reloads {
            _ = scheduler.deliver(timeline([0, 30], policy: .atEnd), to: request.instance, generation: request.generation, now: testEpoch)
        }
        scheduler.setAutomaticReloadsPaused(true)
        #expect(scheduler.advance(to: at(30)).reloads.map(\.instance) == [clock])
        #expect(shownLabel(scheduler.status(of: board)) == "t30", "entries still advance for both")
    }

    @Test("resuming starts the reloads that fell due while paused")
    func resume() {
        let (initial, id, request) = started()
        var scheduler = initial
        _ = scheduler.deliver(timeline([0], policy: .after(at(40))), to: id, generation: request.generation, now: testEpoch)
        scheduler.setAutomaticReloadsPaused(true)
        #expect(scheduler.advance(to: at(100)).reloads.isEmpty)
        scheduler.setAutomaticReloadsPaused(false)
        #expect(scheduler.nextWakeDate == at(40))
        #expect(scheduler.advance(to: at(100)).reloads.map(\.reason) == [.policy])
    }

    @Test("reloads by kind reach only that kind's instances")
    func byKind() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 1))
        let clock = scheduler.add(kind: "clock", now: testEpoch)
        let board = scheduler.add(kind: "leaderboard", now: testEpoch)
        for request in scheduler.advance(to: testEpoch).reloads {
            _ = scheduler.deliver(timeline([0], policy: .never), to: request.instance, generation: request.generation, now: testEpoch)
        }
        scheduler.requestReload(ofKind: "leaderboard", now: at(10))
        #expect(scheduler.advance(to: at(10)).reloads.map(\.instance) == [board])
        scheduler.requestReloadAll(now: at(20))
        #expect(Set(scheduler.advance(to: at(20)).reloads.map(\.instance)) == [clock], "the leaderboard is still in flight")
    }

    @Test("a removed instance drops its answers and its deadlines")
    func remove() {
        let (initial, id, request) = started()
        var scheduler = initial
        scheduler.remove(id)
        #expect(scheduler.deliver(timeline([0], policy: .never), to: id, generation: request.generation, now: testEpoch) == .stale)
        #expect(scheduler.nextWakeDate == nil)
    }
}

@Suite("TimelineScheduler: scale")
struct SchedulerScaleTests {
    @Test("10,000 instances with 100 entries each go through a simulated day, every entry on time")
    func tenThousandInstances() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 60))
        let count = 10_000
        let ids = (0..<count).map { _ in scheduler.add(kind: "k", now: testEpoch) }
        let requests = scheduler.advance(to: testEpoch).reloads
        #expect(requests.count == count)
        // Instance n has entries every 864 s, shifted by n seconds so deadlines interleave.
        for (n, request) in requests.enumerated() {
            let offsets = (0..<100).map { TimeInterval($0 * 864 + (n % 800) + 1) }
            _ = scheduler.deliver(timeline(offsets, policy: .never), to: request.instance, generation: request.generation, now: testEpoch)
        }
        var changes = 0
        var wakeUps = 0
        var early = 0
        while let next = scheduler.nextWakeDate, next <= at(86_400) {
            wakeUps += 1
            let changed = scheduler.advance(to: next).entryChanged
            changes += changed.count
            for id in changed.prefix(1) {
                if let entry = scheduler.status(of: id)?.entry, entry.date > next { early += 1 }
            }
        }
        #expect(changes == count * 100, "every entry shown once")
        #expect(early == 0)
        #expect(wakeUps == 800 * 100, "one wake-up per distinct deadline, no polling")
        #expect(scheduler.nextWakeDate == nil)
        #expect(shownLabel(scheduler.status(of: ids[0])) == "t\(99 * 864 + 1)")
    }
}

@Suite("TimelineScheduler: locally computed instances")
struct SchedulerLocalInstanceTests {
    @Test("an instance computed locally (system every 2 s) reloads at its .after date, not the minimum interval; one that asks sooner is held to a 1 s floor")
    func localFloor() {
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5))
        let system = scheduler.add(kind: "system", now: testEpoch, pausable: false)
        let board = scheduler.add(kind: "leaderboard", now: testEpoch)
        for request in scheduler.advance(to: testEpoch).reloads {
            _ = scheduler.deliver(timeline([0], policy: .after(at(2))), to: request.instance, generation: request.generation, now: testEpoch)
        }
        #expect(scheduler.nextWakeDate == at(2))
        let due = scheduler.advance(to: at(2)).reloads
        #expect(due.map(\.instance) == [system], "the network widget still waits the minimum interval")
        _ = scheduler.deliver(timeline([2], policy: .after(at(2.1))), to: system, generation: due[0].generation, now: at(2))
        #expect(scheduler.nextWakeDate == at(3), "a local instance asking again at once waits the 1 s floor")
        #expect(scheduler.advance(to: at(3)).reloads.map(\.instance) == [system])
        #expect(scheduler.advance(to: at(5)).reloads.map(\.instance) == [board])
    }
}
