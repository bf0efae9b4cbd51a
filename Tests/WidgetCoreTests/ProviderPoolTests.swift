#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FoundationEssentials
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

/// A clock-like provider: one entry a second for five seconds from the clock's now, `.atEnd`.
private final class TickingProvider: TimelineProvider, Sendable {
    let clock: ManualClock
    let calls = Mutex(0)

    init(clock: ManualClock) { self.clock = clock }

    func placeholder(in context: Context) -> TestEntry { TestEntry(date: .distantPast, label: "placeholder") }
    func snapshot(in context: Context) async -> TestEntry { placeholder(in: context) }
    func timeline(in context: Context) async throws -> Timeline<TestEntry> {
        calls.withLock { $0 += 1 }
        let start = clock.now.timeIntervalSince(testEpoch).rounded()
        return Timeline(entries: (0..<5).map { TestEntry(date: at(start + Double($0)), label: "t\(Int(start) + $0)") },
                        policy: .atEnd)
    }
}

/// A provider whose first call blocks its thread until the test releases it (it stands for a
/// provider stuck for a minute in a synchronous read), ignoring cancellation; later calls answer.
private final class BlockingProvider: TimelineProvider, Sendable {
    let release = DispatchSemaphore(value: 0)
    let calls = Mutex(0)
    /// Whether the blocked call found itself cancelled when it came back.
    let sawCancellation = Mutex<Bool?>(nil)

    func placeholder(in context: Context) -> TestEntry { TestEntry(date: .distantPast, label: "placeholder") }
    func snapshot(in context: Context) async -> TestEntry { placeholder(in: context) }
    func timeline(in context: Context) async throws -> Timeline<TestEntry> {
        let call = calls.withLock { $0 += 1; return $0 }
        if call == 1 {
            release.wait()
            sawCancellation.withLock { $0 = Task.isCancelled }
            return Timeline(entries: [TestEntry(date: testEpoch, label: "late")], policy: .never)
        }
        return Timeline(entries: [TestEntry(date: testEpoch, label: "answer \(call)")], policy: .never)
    }
}

/// A provider whose first call awaits (cancellably) for an hour; later calls answer at once.
private final class SuspendingProvider: TimelineProvider, Sendable {
    let calls = Mutex(0)
    let cancelled = Mutex(false)

    func placeholder(in context: Context) -> TestEntry { TestEntry(date: .distantPast, label: "placeholder") }
    func snapshot(in context: Context) async -> TestEntry { placeholder(in: context) }
    func timeline(in context: Context) async throws -> Timeline<TestEntry> {
        let call = calls.withLock { $0 += 1; return $0 }
        if call == 1 {
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                cancelled.withLock { $0 = true }
                throw error
            }
            return Timeline(entries: [TestEntry(date: testEpoch, label: "late")], policy: .never)
        }
        return Timeline(entries: [TestEntry(date: testEpoch, label: "answer \(call)")], policy: .never)
    }
}

/// Waits for `ids`' provider calls, or gives up after `seconds` of real time (a watchdog for a
/// failing run, which would otherwise wait for ever; a passing run never reaches it).
@MainActor
private func settled(_ driver: TimelineDriver, _ ids: Set<WidgetInstanceID>, within seconds: Int64 = 20) async -> Bool {
    await finishes(within: seconds) { await driver.settle(ids) }
}

/// Runs `body` and tells whether it ended within `seconds` of real time (the same watchdog).
@MainActor
private func finishes(within seconds: Int64 = 20, _ body: @escaping @MainActor () async -> Void) async -> Bool {
    let answered = Mutex(false)
    return await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
        let finish: @Sendable (Bool) -> Void = { value in
            let first = answered.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { continuation.resume(returning: value) }
        }
        Task { @MainActor in
            await body()
            finish(true)
        }
        Task {
            try? await Task.sleep(for: TestTimeScale.scaled(.seconds(seconds)))
            finish(false)
        }
    }
}

@Suite("Providers in parallel", .serialized)
@MainActor
struct ProviderPoolTests {
    @Test("a provider blocked for 60 s delays no other panel; it times out, and its late answer is dropped")
    func blockedProviderDelaysNoOther() async throws {
        let clock = ManualClock(now: testEpoch)
        let driver = TimelineDriver(clock: clock, configuration: .init(minimumReloadInterval: 1, requestTimeout: 30),
                                    providerExecutor: ThreadTaskExecutor(maximumThreads: 4))
        let blocker = BlockingProvider()
        let ticker = TickingProvider(clock: clock)
        var stuck = WidgetInstanceID(rawValue: 0)
        var clockPanel = WidgetInstanceID(rawValue: 0)
        driver.batch {
            stuck = driver.add(kind: "stuck", family: .small, size: CellSize(columns: 20, rows: 5),
                               provider: AnyTimelineProvider(blocker))
            clockPanel = driver.add(kind: "clock", family: .small, size: CellSize(columns: 20, rows: 5),
                                    provider: AnyTimelineProvider(ticker))
        }
        defer { blocker.release.signal() }  // a failing run must not leave the thread blocked
        #expect(await settled(driver, [clockPanel]))
        #expect(shownLabel(driver.status(of: clockPanel)) == "t0")

        // Simulated time: every second for a minute, the clock panel shows that second's entry,
        // its reloads (every five seconds) answered while the other provider still blocks.
        for second in 1...60 {
            clock.advance(to: at(TimeInterval(second)))
            try #require(await settled(driver, [clockPanel]), "the clock panel's reload at \(second) s never came back")
            #expect(shownLabel(driver.status(of: clockPanel)) == "t\(second)")
            if second == 30 {
                #expect(driver.status(of: stuck)?.lastFailure?.message == "timed out after 30 s")
            }
        }
        #expect(ticker.calls.withLock { $0 } >= 12, "a reload every five seconds")
        #expect(shownLabel(driver.status(of: stuck)) == nil, "still the placeholder")
        #expect(blocker.calls.withLock { $0 } == 1, "one call per instance at a time: the retry waits for it")
        #expect(driver.status(of: stuck)?.lastFailure?.message.hasPrefix("timed out") == true)

        // At 60 s the blocked call returns: cancelled, its answer dropped; the retry then runs.
        blocker.release.signal()
        #expect(await settled(driver, [stuck]))
        #expect(blocker.sawCancellation.withLock { $0 } == true)
        // The retry that came due at about 35 s waited for the blocked call; it runs now.
        #expect(blocker.calls.withLock { $0 } == 2)
        #expect(shownLabel(driver.status(of: stuck)) == "answer 2", "the late answer was dropped, the retry's shown")
        driver.remove(stuck)
        driver.remove(clockPanel)
        expectNoPendingWork(clock)
    }

    @Test("a timed-out request is cancelled: the provider's await ends, the panel says timed out")
    func timeoutCancels() async {
        let clock = ManualClock(now: testEpoch)
        let driver = TimelineDriver(clock: clock, configuration: .init(minimumReloadInterval: 1, requestTimeout: 30, retryBaseDelay: 5),
                                    providerExecutor: ThreadTaskExecutor(maximumThreads: 2))
        let provider = SuspendingProvider()
        let id = driver.add(kind: "slow", family: .small, size: CellSize(columns: 20, rows: 5),
                            provider: AnyTimelineProvider(provider))
        clock.advance(to: at(29))
        #expect(provider.cancelled.withLock { $0 } == false)
        #expect(driver.runningProviderCalls == 1)
        clock.advance(to: at(30))
        #expect(driver.status(of: id)?.lastFailure?.message == "timed out after 30 s")
        #expect(await settled(driver, [id]), "the cancelled call returned")
        #expect(provider.cancelled.withLock { $0 })
        // The cancellation error was the old generation's: dropped, the message stays.
        #expect(driver.status(of: id)?.lastFailure?.message == "timed out after 30 s")
        clock.advance(to: at(40))  // the retry, 2.5 to 5 s after the failure
        #expect(await settled(driver, [id]))
        #expect(shownLabel(driver.status(of: id)) == "answer 2")
        driver.remove(id)
        expectNoPendingWork(clock)
    }

    @Test("threads start on demand, up to the maximum: jobs run beside blocked ones, and wait past the cap")
    func threadsStartOnDemand() async {
        let executor = ThreadTaskExecutor(maximumThreads: 3)
        #expect(executor.startedThreads == 0, "no thread before the first job")
        let gate = DispatchSemaphore(value: 0)
        let blocked = (0..<2).map { _ in Task(executorPreference: executor) { gate.wait() } }
        // Two threads blocked: a third runs this one.
        #expect(await finishes { _ = await Task(executorPreference: executor) { 1 }.value })
        let third = Task(executorPreference: executor) { gate.wait() }
        let ran = Mutex(false)
        let queued = Task(executorPreference: executor) { ran.withLock { $0 = true } }
        #expect(executor.startedThreads == 3)
        // Three blocked, the cap reached: the queued job waits for a thread to come free.
        for _ in 0..<100 { await Task.yield() }
        #expect(ran.withLock { $0 } == false)
        gate.signal()
        #expect(await finishes { await queued.value })
        #expect(ran.withLock { $0 })
        for _ in 0..<2 { gate.signal() }
        for task in blocked + [third] { await task.value }
        #expect(executor.startedThreads == 3)
    }
}

/// Marks the main queue, so code can tell it runs there (in a test process the main queue's
/// blocks may run on any of Dispatch's threads: `dispatchMain` parks the main thread).
private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Records whether each call ran on the main queue.
private final class ThreadRecordingProvider: TimelineProvider, Sendable {
    let onMainQueue = Mutex<[Bool]>([])

    func placeholder(in context: Context) -> TestEntry { TestEntry(date: .distantPast, label: "placeholder") }
    func snapshot(in context: Context) async -> TestEntry { placeholder(in: context) }
    func timeline(in context: Context) async throws -> Timeline<TestEntry> {
        onMainQueue.withLock { $0.append(DispatchQueue.getSpecific(key: mainQueueKey) == true) }
        return Timeline(entries: [TestEntry(date: testEpoch, label: "on \(onMainQueue.withLock { $0.count })")], policy: .never)
    }
}

@Suite("Providers on the loop")
@MainActor
struct ProvidersOnLoopTests {
    @Test("an instance added onLoop runs its provider on the main queue (the loop's thread in the host); the others on the pool")
    func onLoopRunsOnMain() async throws {
        _ = mainQueueKey  // marked before any provider runs
        let clock = ManualClock(now: testEpoch)
        let pool = ThreadTaskExecutor(maximumThreads: 2)
        let driver = TimelineDriver(clock: clock, providerExecutor: pool)
        let cheap = ThreadRecordingProvider(), other = ThreadRecordingProvider()
        let onLoop = driver.add(kind: "system", family: .small, size: CellSize(columns: 20, rows: 5),
                                provider: AnyTimelineProvider(cheap), onLoop: true)
        let pooled = driver.add(kind: "other", family: .small, size: CellSize(columns: 20, rows: 5),
                                provider: AnyTimelineProvider(other))
        await driver.settle()
        #expect(cheap.onMainQueue.withLock { $0 } == [true], "the cheap provider ran on the main queue (the host's loop)")
        #expect(other.onMainQueue.withLock { $0 } == [false], "the other on the pool")
        #expect(shownLabel(driver.status(of: onLoop)) == "on 1" && shownLabel(driver.status(of: pooled)) == "on 1")
    }

    @Test("a provider that answers timelineOnLoop is not called off the loop; when it answers nil, timeline(in:) runs on the pool")
    func timelineOnLoopAnswers() async throws {
        _ = mainQueueKey
        let clock = ManualClock(now: testEpoch)
        let driver = TimelineDriver(clock: clock, providerExecutor: ThreadTaskExecutor(maximumThreads: 2))
        let answering = LoopAnsweringProvider(answers: true), declining = LoopAnsweringProvider(answers: false)
        let first = driver.add(kind: "a", family: .small, size: CellSize(columns: 20, rows: 5), provider: AnyTimelineProvider(answering))
        let second = driver.add(kind: "b", family: .small, size: CellSize(columns: 20, rows: 5), provider: AnyTimelineProvider(declining))
        await driver.settle()
        #expect(answering.offLoop.withLock { $0 } == [], "answered on the loop: no provider thread")
        #expect(shownLabel(driver.status(of: first)) == "on the loop")
        #expect(declining.offLoop.withLock { $0 } == [false], "declined: the pool ran timeline(in:)")
        #expect(shownLabel(driver.status(of: second)) == "off the loop")
    }
}

/// Answers `timelineOnLoop` (or declines it); records where `timeline(in:)` ran.
private final class LoopAnsweringProvider: TimelineProvider, Sendable {
    let answers: Bool
    let offLoop = Mutex<[Bool]>([])

    init(answers: Bool) { self.answers = answers }

    func placeholder(in context: Context) -> TestEntry { TestEntry(date: .distantPast, label: "placeholder") }
    func snapshot(in context: Context) async -> TestEntry { placeholder(in: context) }
    func timelineOnLoop(in context: Context) -> Timeline<TestEntry>? {
        answers ? Timeline(entries: [TestEntry(date: testEpoch, label: "on the loop")], policy: .never) : nil
    }
    func timeline(in context: Context) async throws -> Timeline<TestEntry> {
        offLoop.withLock { $0.append(DispatchQueue.getSpecific(key: mainQueueKey) == true) }
        return Timeline(entries: [TestEntry(date: testEpoch, label: "off the loop")], policy: .never)
    }
}
