import BackgroundSessions
import FoundationEssentials
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

private let largeContext = TimelineProviderContext(family: .large, size: CellSize(columns: 52, rows: 21))

private func fetchedState(at fetchedAt: Date, board: LeaderboardBoard = rosterBoard) -> LeaderboardState {
    var state = LeaderboardState()
    state.received(LeaderboardDecoder.Result(board: board, skipped: 0), at: fetchedAt)
    return state
}

/// A provider on a state directory without background sessions (answers from the container).
private func offlineProvider(stateDirectory: String, refresh: Int, now: Date) -> LeaderboardProvider {
    LeaderboardProvider(url: URL(string: "http://127.0.0.1:9/leaderboard")!, refreshSeconds: refresh, session: "leaderboard",
                        maxRows: 10, host: WidgetContext(stateDirectory: stateDirectory),
                        now: { now })
}

@Suite("Leaderboard timeline and state")
struct LeaderboardTimelineTests {
    // MARK: Entries

    @Test("one entry per minute boundary until the next fetch, the first at start")
    func entryDates() {
        let state = fetchedState(at: at(0))
        let entries = LeaderboardEntry.timeline(state, from: at(10), until: at(310), maxRows: 10)
        #expect(entries.map { $0.date.timeIntervalSince(testEpoch) } == [10, 60, 120, 180, 240, 300])
        let exact = LeaderboardEntry.timeline(state, from: at(10), until: at(300), maxRows: 10)
        #expect(exact.last?.date == at(240), "no entry at the moment of the next fetch: the new timeline brings it")
        let short = LeaderboardEntry.timeline(state, from: at(10), until: at(20), maxRows: 10)
        #expect(short.map(\.date) == [at(10)], "always at least the entry at start")
    }

    @Test("each entry projects health from fetchedAt at each hero's rate, capped at 1")
    func healthProjection() throws {
        let state = fetchedState(at: at(-1800))
        let entries = LeaderboardEntry.timeline(state, from: at(10), until: at(190), maxRows: 10)
        for entry in entries {
            let board = try #require(entry.board)
            let hours = entry.date.timeIntervalSince(at(-1800)) / 3600
            for original in roster {
                let shown = try #require(board.hero(named: original.name))
                let expected = min(1, original.health + original.healthRecoveryRatePerHour * hours)
                #expect(abs(shown.health - expected) < 1e-9, "\(original.name) at \(entry.date)")
                #expect(shown.health <= 1)
            }
            #expect(board.hero(named: "Spouty")?.health == 1, "0.99 + 0.59/h for half an hour is capped at 1")
            #expect(entry.fetchedAt == at(-1800))
            #expect(entry.previous == nil)
        }
        let panda = entries.compactMap { $0.board?.hero(named: "Power Panda")?.health }
        #expect(panda == panda.sorted() && Set(panda).count == panda.count, "recovering health rises entry by entry")
        #expect(abs(panda[0] - (0.14 + 0.25 * 1810 / 3600)) < 1e-9)
    }

    @Test("without a board every entry has none, and carries the state's error and fetching flag")
    func noBoard() {
        var state = LeaderboardState(isFetching: true)
        state.failed("connection refused", at: at(0))
        let entries = LeaderboardEntry.timeline(state, from: at(0), until: at(120), maxRows: 4)
        #expect(entries.count == 2)
        #expect(entries.allSatisfy { $0.board == nil && $0.fetchError == "connection refused" && $0.isFetching && $0.maxRows == 4 })
    }

    @Test("a long refresh reaches the next fetch with coarser entries: minutes for an hour, then 5, 15, 60; policy .after(the fetch)")
    func reachesNextFetch() async throws {
        let dir = TemporaryStateDirectory()
        let store = LeaderboardStore(context: WidgetContext(stateDirectory: dir.path))
        #expect(store.save(fetchedState(at: at(-30)), session: "leaderboard"))
        let timeline = try await offlineProvider(stateDirectory: dir.path, refresh: 21_600, now: at(0)).timeline(in: largeContext)
        let offsets = timeline.entries.map { $0.date.timeIntervalSince(testEpoch) }
        #expect(timeline.policy == .after(at(21_600)), "no reload before the next fetch")
        #expect(offsets.count <= LeaderboardEntry.maximumEntries)
        #expect(offsets.prefix(60) == ArraySlice((0..<60).map { Double($0) * 60 }), "the first hour by the minute, as before")
        let steps = zip(offsets, offsets.dropFirst()).map { $1 - $0 }
        #expect(steps == steps.sorted() && steps.allSatisfy { [60, 300, 900, 3_600].contains($0) }, "\(steps)")
        #expect(offsets.contains(3_600) && offsets.contains(10_800) && offsets.contains(21_600 - 3_600))
        #expect(offsets.last! < 21_600 && offsets.last! >= 21_600 - 3_600, "the last entry is within a step of the fetch")
        for entry in timeline.entries {
            let hours = entry.date.timeIntervalSince(at(-30)) / 3600
            for original in roster {
                let shown = try #require(entry.board?.hero(named: original.name))
                #expect(abs(shown.health - min(1, original.health + original.healthRecoveryRatePerHour * hours)) < 1e-9,
                        "\(original.name) is projected to its entry's own date")
            }
        }
        // The day's longest refresh still fits the cap.
        let day = LeaderboardEntry.timeline(fetchedState(at: at(-30)), from: at(17), until: at(17 + 86_400), maxRows: 10)
        #expect(day.count <= LeaderboardEntry.maximumEntries && day.last!.date >= at(86_400 - 3_600))
    }

    @Test("a wait beyond what the cap reaches (a week's refresh) asks again where the next hourly entry would be")
    func beyondTheCap() async throws {
        let dir = TemporaryStateDirectory()
        #expect(LeaderboardStore(context: WidgetContext(stateDirectory: dir.path)).save(fetchedState(at: at(-30)), session: "leaderboard"))
        let timeline = try await offlineProvider(stateDirectory: dir.path, refresh: 7 * 86_400, now: at(0)).timeline(in: largeContext)
        #expect(timeline.entries.count == LeaderboardEntry.maximumEntries)
        let last = try #require(timeline.entries.last?.date)
        #expect(last > at(86_400), "past a day of entries")
        #expect(timeline.policy == .after(last + 3_600), "not a frozen projection, and not a reload a minute after the last hourly entry")
    }

    @Test("a refresh longer than two hours reloads only for its fetches: 6 h under a budget of 1 is one counted reload, at the fetch")
    func longRefresh() async throws {
        let dir = TemporaryStateDirectory()
        let store = LeaderboardStore(context: WidgetContext(stateDirectory: dir.path))
        #expect(store.save(fetchedState(at: at(-30)), session: "leaderboard"))
        let clock = ManualClock(now: at(0))
        let provider = LeaderboardProvider(url: URL(string: "http://127.0.0.1:9/leaderboard")!, refreshSeconds: 21_600,
                                           session: "leaderboard", maxRows: 10,
                                           host: WidgetContext(stateDirectory: dir.path), now: { clock.now })
        var scheduler = TimelineScheduler(configuration: .init(minimumReloadInterval: 5, dailyReloadBudget: 1))
        let id = scheduler.add(kind: "leaderboard", now: clock.now)
        var reloads: [(TimeInterval, ReloadReason)] = []
        var shown: [Date] = []
        while let wake = scheduler.nextWakeDate, wake <= at(21_600) {
            clock.advance(to: max(wake, clock.now))
            let changes = scheduler.advance(to: clock.now)
            for request in changes.reloads {
                reloads.append((clock.now.timeIntervalSince(testEpoch), request.reason))
                let timeline = try await provider.timeline(in: largeContext)
                _ = scheduler.deliver(timeline.erased, to: request.instance, generation: request.generation, now: clock.now)
            }
            if let entry = scheduler.status(of: id)?.entry { shown.append(entry.date) }
            if clock.now < at(21_600) {
                #expect(scheduler.status(of: id)?.heldByBudgetUntil == nil, "not held by the budget before the fetch (at \(clock.now))")
            }
        }
        #expect(reloads.map(\.0) == [0, 21_600] && reloads.map(\.1) == [.initial, .policy],
                "the initial reload and the one at the next fetch, no counted reload when entries run out: \(reloads)")
        #expect(shown.contains(at(3 * 3_600)) && shown.contains(at(5 * 3_600)), "the projection moves on all the way")
    }

    @Test("the provider answers from its container: entries until now + refresh, policy .after(now + refresh)")
    func providerPolicy() async throws {
        let dir = TemporaryStateDirectory()
        let store = LeaderboardStore(context: WidgetContext(stateDirectory: dir.path))
        #expect(store.save(fetchedState(at: at(-30)), session: "leaderboard"))
        let now = at(30)
        let timeline = try await offlineProvider(stateDirectory: dir.path, refresh: 300, now: now).timeline(in: largeContext)
        #expect(timeline.policy == .after(now + 300))
        #expect(timeline.entries.map(\.date) == [at(30), at(60), at(120), at(180), at(240), at(300)])
        #expect(timeline.entries.allSatisfy { $0.board?.heroes.count == 6 && $0.fetchedAt == at(-30) })
        #expect(timeline.entries[0].fetchError == "background sessions are off in this mode",
                "without sessions the panel says why it cannot fetch")
    }

    @Test("placeholder and snapshot: the placeholder is empty, the snapshot is the state now")
    func placeholderAndSnapshot() async {
        let dir = TemporaryStateDirectory()
        let provider = offlineProvider(stateDirectory: dir.path, refresh: 10, now: at(0))
        let placeholder = provider.placeholder(in: largeContext)
        #expect(placeholder.board == nil && placeholder.fetchError == nil && placeholder.maxRows == 10)
        let empty = await provider.snapshot(in: largeContext)
        #expect(empty.board == nil && empty.date == at(0))
        LeaderboardStore(container: try? WidgetContainer(kind: "leaderboard", stateDirectory: dir.path))
            .save(fetchedState(at: at(-60)), session: "leaderboard")
        let snapshot = await provider.snapshot(in: largeContext)
        #expect(snapshot.board?.heroes.count == 6)
    }

    // MARK: State transitions

    @Test("received: the old board becomes the previous one (for ▲/▼), the error and Retry-After clear")
    func received() {
        var state = fetchedState(at: at(0))
        #expect(state.previous == nil)
        state.failed("timed out", at: at(5))
        state.retryAfterUntil = at(60)
        state.received(LeaderboardDecoder.Result(board: laterBoard, skipped: 2), at: at(10))
        #expect(state.board == laterBoard)
        #expect(state.previous == rosterBoard)
        #expect(state.fetchedAt == at(10) && state.lastAttempt == at(10))
        #expect(state.skipped == 2)
        #expect(state.lastError == nil && state.retryAfterUntil == nil)
        state.received(LeaderboardDecoder.Result(board: laterBoard, skipped: 0), at: at(20))
        #expect(state.previous == rosterBoard, "the same board again keeps the previous one, so ▲/▼ stay")
        #expect(state.fetchedAt == at(20))
    }

    @Test("confirmed (304): the board stays and its age restarts; the error clears")
    func confirmed() {
        var state = fetchedState(at: at(0))
        state.received(LeaderboardDecoder.Result(board: laterBoard, skipped: 0), at: at(10))
        state.failed("503", at: at(15))
        state.confirmed(at: at(100))
        #expect(state.board == laterBoard && state.previous == rosterBoard)
        #expect(state.fetchedAt == at(100) && state.lastAttempt == at(100))
        #expect(state.lastError == nil)
        var empty = LeaderboardState()
        empty.confirmed(at: at(100))
        #expect(empty.fetchedAt == nil, "a 304 without a board does not invent an age")
    }

    @Test("failed: the board and its age stay, the reason is kept for the footer")
    func failed() {
        var state = fetchedState(at: at(0))
        state.failed("connection refused", at: at(180))
        #expect(state.board == rosterBoard)
        #expect(state.fetchedAt == at(0), "the age keeps growing so the footer says how old the board is")
        #expect(state.lastError == "connection refused" && state.lastAttempt == at(180))
    }

    @Test("the state survives the container; isFetching is not stored")
    func storeRoundTrip() {
        let dir = TemporaryStateDirectory()
        let store = LeaderboardStore(container: try? WidgetContainer(kind: "leaderboard", stateDirectory: dir.path))
        var state = fetchedState(at: at(0))
        state.received(LeaderboardDecoder.Result(board: laterBoard, skipped: 1), at: at(10))
        state.failed("busy", at: at(20))
        state.retryAfterUntil = at(50)
        state.isFetching = true
        #expect(store.save(state, session: "s1"))
        var expected = state
        expected.isFetching = false
        #expect(store.load(session: "s1") == expected)
        #expect(store.load(session: "other") == LeaderboardState())
        #expect(LeaderboardStore(container: nil).save(state, session: "s1") == false)
    }

    // MARK: Delegate and Retry-After

    @Test("the session delegate records Retry-After, 304 and failures in the container, then reloads and completes")
    @MainActor
    func delegateRecords() throws {
        let dir = TemporaryStateDirectory()
        let clock = ManualClock(now: at(0))
        let manager = try BackgroundSessionManager.open(stateDirectory: dir.path + "/state", transport: FakeTransport(), clock: clock)
        defer { manager.close() }
        let center = WidgetCenter()
        let store = LeaderboardStore(container: try WidgetContainer(kind: "leaderboard", stateDirectory: dir.path + "/state"))
        store.save(fetchedState(at: at(-60)), session: "leaderboard")
        let completions = Counter()
        let delegate = FetchSessionDelegate(LeaderboardSessionRecorder(store: store, center: center), intents: FetchIntents(),
                                            now: { clock.now }, completion: { completions.next() })
        let session = manager.session(identifier: "leaderboard")
        let task = session.downloadTask(with: URL(string: "http://127.0.0.1:9/leaderboard")!)

        delegate.urlSession(session, task: task, didCompleteWithError: .failed(reason: "HTTP 429", attempts: 1, retryAfter: .seconds(30)))
        var state = store.load(session: "leaderboard")
        #expect(state.lastError == "HTTP 429" && state.retryAfterUntil == at(30) && state.board == rosterBoard)

        clock.advance(by: 40)
        delegate.urlSession(session, task: task, didCompleteWithError: .notModified(Validators(etag: "\"x\"")))
        state = store.load(session: "leaderboard")
        #expect(state.lastError == nil && state.retryAfterUntil == nil && state.fetchedAt == at(40))

        delegate.urlSession(session, task: task, didCompleteWithError: .cancelled)
        #expect(store.load(session: "leaderboard") == state, "a cancelled task leaves the state alone")

        delegate.urlSession(session, task: task, didCompleteWithError: nil)
        #expect(store.load(session: "leaderboard") == state)

        #expect(center.takeRequests().isEmpty)
        delegate.urlSessionDidFinishEvents(forBackgroundURLSession: session)
        #expect(center.takeRequests() == [.kind("leaderboard"), .kind("hero")])
        #expect(completions.count == 1)
        task.cancel()
    }

    @Test("a batch of failures only reloads as an outage (free); one with a 304 or a body as data (issue 26, item 4)")
    @MainActor
    func outageBatches() throws {
        let rig = try ProviderRig()
        defer { rig.close() }
        let batches = Batches(rig, intents: FetchIntents())
        defer { batches.close() }
        let refused = BackgroundTaskError.failed(reason: "connection refused", attempts: 1, retryAfter: nil)
        #expect(batches.deliver([refused]) == [.caused("leaderboard", .outage), .caused("hero", .outage)])
        #expect(batches.deliver([refused, .notModified(Validators(etag: "\"x\""))]) == [.kind("leaderboard"), .kind("hero")],
                "a 304 is an answer: the server is up")
    }

    @Test("the user's r marks the download it starts or joins: the batch reloads as the answer to them, however late; a system fetch's does not (issue 26, item 2)")
    @MainActor
    func userIntentFollowsTheDownload() async throws {
        let rig = try ProviderRig()
        defer { rig.close() }
        LeaderboardStore(context: rig.context).save(fetchedState(at: at(-60)), session: "leaderboard")
        let user = TimelineProviderContext(family: .large, size: CellSize(columns: 52, rows: 21), isUserInitiated: true)
        _ = try await rig.provider().timeline(in: user)
        #expect(rig.transport.startedRequests.count == 1)
        let intents = rig.context.fetchIntents
        #expect(intents.take("leaderboard") == .answer)
        // A push marks its download too; the user's mark wins over it.
        intents.mark("leaderboard", .answer)
        intents.mark("leaderboard", .push)
        #expect(intents.take("leaderboard") == .answer && intents.take("leaderboard") == nil)
        // The delegate hands the mark to the batch's reloads.
        let batches = Batches(rig, intents: intents)
        defer { batches.close() }
        intents.mark("leaderboard", .answer)
        let notModified = BackgroundTaskError.notModified(Validators(etag: "\"x\""))
        #expect(batches.deliver([notModified]) == [.caused("leaderboard", .answer), .caused("hero", .answer)])
        #expect(batches.deliver([notModified]) == [.kind("leaderboard"), .kind("hero")], "the next batch is the system's")
    }

    @Test("waiting out a failure, the timeline's reload is a retry (free); a healthy one's is not")
    @MainActor
    func retryingTimeline() async throws {
        let rig = try ProviderRig()
        defer { rig.close() }
        var state = fetchedState(at: at(-60))
        state.failed("connection refused", at: at(-1))
        LeaderboardStore(context: rig.context).save(state, session: "leaderboard")
        let failing = try await rig.provider().timeline(in: largeContext)
        #expect(failing.policyRetriesFailure, "\(failing.policy)")
        LeaderboardStore(context: rig.context).save(fetchedState(at: at(-60)), session: "leaderboard")
        let healthy = try await rig.provider().timeline(in: largeContext)
        #expect(!healthy.policyRetriesFailure)
    }

    @Test("while the server's Retry-After runs no automatic fetch starts; the footer says when")
    @MainActor
    func providerHonoursRetryAfter() async throws {
        let rig = try ProviderRig()
        defer { rig.close() }
        let (clock, transport, context) = (rig.clock, rig.transport, rig.context)
        var state = fetchedState(at: at(-60))
        state.failed("HTTP 429", at: at(-5))
        state.retryAfterUntil = at(25)
        LeaderboardStore(context: context).save(state, session: "leaderboard")
        let provider = rig.provider()
        let user = TimelineProviderContext(family: .large, size: CellSize(columns: 52, rows: 21), isUserInitiated: true)

        let waiting = try await provider.timeline(in: largeContext)
        #expect(transport.startedRequests.isEmpty)
        #expect(waiting.entries[0].fetchError == "HTTP 429 · retry in 25s")
        #expect(waiting.entries[0].isFetching == false)

        clock.advance(to: at(26))
        let after = try await provider.timeline(in: largeContext)
        #expect(transport.startedRequests.count == 1, "once Retry-After has passed the due fetch starts")
        #expect(after.entries[0].isFetching)
        let joined = try await provider.timeline(in: user)
        #expect(transport.startedRequests.count == 1, "a user reload joins the download already running")
        #expect(joined.entries[0].isFetching)
        for id in transport.runningIDs { transport.finish(id, with: .cancelled) }
    }

    @Test("a user reload cuts a running download's backoff short; a server's Retry-After is kept and the footer says when")
    @MainActor
    func userReloadCutsBackoffShort() async throws {
        let rig = try ProviderRig()
        defer { rig.close() }
        let (transport, context) = (rig.transport, rig.context)
        LeaderboardStore(context: context).save(fetchedState(at: at(-60)), session: "leaderboard")
        let provider = rig.provider()
        let user = TimelineProviderContext(family: .large, size: CellSize(columns: 52, rows: 21), isUserInitiated: true)

        _ = try await provider.timeline(in: largeContext)
        let id = try #require(transport.runningIDs.first)
        transport.emit(id, .retrying(attempt: 1, delay: .seconds(30), reason: "connection refused"))
        _ = try await provider.timeline(in: largeContext)
        #expect(transport.expeditedIDs.isEmpty, "a system reload leaves the backoff alone")

        let expedited = try await provider.timeline(in: user)
        #expect(transport.expeditedIDs == [id], "the user reload retries now")
        #expect(transport.startedRequests.count == 1, "and joins the download rather than starting another")
        #expect(expedited.entries[0].isFetching && expedited.entries[0].fetchError == nil)

        transport.emitRetryAfter(id, attempt: 2, wait: .milliseconds(24_200), reason: "server answered 429 Too Many Requests")
        let honoured = try await provider.timeline(in: user)
        #expect(transport.expeditedIDs == [id], "the server's wait is not cut short")
        #expect(transport.startedRequests.count == 1)
        #expect(honoured.entries[0].isFetching)
        #expect(honoured.entries[0].fetchError == "server answered 429 Too Many Requests · retry in 25s")
        #expect(honoured.entries[0].board != nil, "the board stays")
        for id in transport.runningIDs { transport.finish(id, with: .cancelled) }
    }

    @Test("a fresh board is not fetched again before refresh unless the user asks")
    @MainActor
    func providerFetchesWhenDue() async throws {
        let rig = try ProviderRig()
        defer { rig.close() }
        let (transport, context) = (rig.transport, rig.context)
        LeaderboardStore(context: context).save(fetchedState(at: at(-2)), session: "leaderboard")
        let provider = rig.provider()
        let fresh = try await provider.timeline(in: largeContext)
        #expect(transport.startedRequests.isEmpty)
        #expect(fresh.entries[0].isFetching == false)
        let user = TimelineProviderContext(family: .large, size: CellSize(columns: 52, rows: 21), isUserInitiated: true)
        _ = try await provider.timeline(in: user)
        #expect(transport.startedRequests.count == 1)
        for id in transport.runningIDs { transport.finish(id, with: .cancelled) }
    }
}

@Suite("Leaderboard reloads on the loop")
struct LeaderboardOnLoopTests {
    @Test("a reload that starts no download is answered from memory on the loop, as the provider thread would answer it")
    @MainActor
    func answeredFromMemory() async throws {
        let rig = try ProviderRig()
        defer { rig.close() }
        let provider = rig.provider()
        #expect(provider.timelineOnLoop(in: largeContext) == nil, "nothing written by this process yet: the file is read off the loop")
        // A 200's board, just written: kept in memory.
        LeaderboardStore(context: rig.context).save(fetchedState(at: at(-2)), session: "leaderboard")
        let onLoop = try #require(provider.timelineOnLoop(in: largeContext))
        let offLoop = try await provider.timeline(in: largeContext)
        #expect(onLoop.entries == offLoop.entries && onLoop.policy == offLoop.policy)
        #expect(onLoop.entries[0].board?.heroes.count == 6 && onLoop.entries[0].fetchedAt == at(-2))
        // A 304: only the check times move, held in memory; "updated" restarts as off the loop.
        LeaderboardStore(context: rig.context).update(session: "leaderboard") { $0.confirmed(at: at(1)) }
        rig.clock.advance(to: at(1))
        let confirmed = try #require(provider.timelineOnLoop(in: largeContext))
        #expect(confirmed.entries == (try await provider.timeline(in: largeContext)).entries)
        #expect(confirmed.entries[0].fetchedAt == at(1) && confirmed.entries[0].isFetching == false)
        #expect(rig.transport.startedRequests.isEmpty)
    }

    @Test("the user's reload and a due fetch start their download from the loop; a large board is left to the provider thread")
    @MainActor
    func downloadsFromTheLoop() async throws {
        let rig = try ProviderRig()
        defer { rig.close() }
        let provider = rig.provider()
        let store = LeaderboardStore(context: rig.context)
        store.save(fetchedState(at: at(-2)), session: "leaderboard")
        _ = rig.manager.session(identifier: "other").downloadTask(with: URL(string: "http://127.0.0.1:9/other")!)  // the commit after opening
        let user = TimelineProviderContext(family: .large, size: CellSize(columns: 52, rows: 21), isUserInitiated: true)
        let fetching = try #require(provider.timelineOnLoop(in: user), "the user's reload on the loop")
        #expect(fetching.entries[0].isFetching && rig.transport.startedRequests.count == 2)
        for id in rig.transport.runningIDs { rig.transport.finish(id, with: .cancelled) }
        rig.clock.advance(to: at(20))
        #expect(try #require(provider.timelineOnLoop(in: largeContext)).entries[0].isFetching, "a due fetch starts from the loop")
        #expect(rig.transport.startedRequests.count == 3)
        for id in rig.transport.runningIDs { rig.transport.finish(id, with: .cancelled) }
        // A board over 64 KiB encoded is read from its file off the loop, not kept in memory.
        let long = String(repeating: "x", count: 400)
        let large = LeaderboardBoard(updated: testEpochDate, heroes: (0..<200).map { hero("\(long)\($0)", exp: $0) })
        store.save(fetchedState(at: at(19), board: large), session: "leaderboard")
        #expect(store.loadFromMemory(session: "leaderboard") == nil)
        #expect(provider.timelineOnLoop(in: largeContext) == nil)
    }
}

/// Counts calls, thread-safely.
final class Counter: Sendable {
    private let value = Mutex(0)
    @discardableResult
    func next() -> Int { value.withLock { $0 += 1; return $0 } }
    var count: Int { value.withLock { $0 } }
}

/// A leaderboard provider on a fake transport, with its session manager on a temporary state
/// directory and a manual clock at `at(0)`.
private final class ProviderRig {
    let directory = TemporaryStateDirectory()
    let clock = ManualClock(now: at(0))
    let transport = FakeTransport()
    let manager: BackgroundSessionManager
    let context: WidgetContext

    init() throws {
        manager = try BackgroundSessionManager.open(stateDirectory: directory.path, transport: transport, clock: clock)
        let clock = self.clock
        context = WidgetContext(sessions: manager, stateDirectory: directory.path, center: WidgetCenter(), now: { clock.now })
    }

    /// The provider for session "leaderboard", refreshing every 10 s.
    func provider() -> LeaderboardProvider {
        let clock = self.clock
        return LeaderboardProvider(url: URL(string: "http://127.0.0.1:9/leaderboard")!, refreshSeconds: 10,
                                   session: "leaderboard", maxRows: 10, host: context, now: { clock.now })
    }

    func close() { manager.close() }
}

/// The leaderboard session's delegate on a rig's manager, its batches of endings delivered by
/// hand: what each batch asked `WidgetCenter` for.
@MainActor
private final class Batches {
    let center = WidgetCenter()
    let delegate: FetchSessionDelegate
    let session: BackgroundSession
    let task: BackgroundDownloadTask

    init(_ rig: ProviderRig, intents: FetchIntents) {
        let clock = rig.clock
        delegate = FetchSessionDelegate(LeaderboardSessionRecorder(store: LeaderboardStore(context: rig.context), center: center),
                                        intents: intents, now: { clock.now }, completion: {})
        session = rig.manager.session(identifier: "leaderboard")
        task = session.downloadTask(with: URL(string: "http://127.0.0.1:9/leaderboard")!)
    }

    func deliver(_ endings: [BackgroundTaskError]) -> [WidgetCenter.Request] {
        for ending in endings { delegate.urlSession(session, task: task, didCompleteWithError: ending) }
        delegate.urlSessionDidFinishEvents(forBackgroundURLSession: session)
        return center.takeRequests()
    }

    func close() { task.cancel() }
}
