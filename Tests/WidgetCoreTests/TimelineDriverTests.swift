import FoundationEssentials
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

/// A provider whose timelines are scripted per call; counts calls and contexts.
private final class ScriptedProvider: TimelineProvider, Sendable {
    struct Failure: Error, CustomStringConvertible { var description: String }

    private let script: Mutex<[Result<Timeline<TestEntry>, Failure>]>
    let contexts = Mutex<[TimelineProviderContext]>([])

    init(_ script: [Result<Timeline<TestEntry>, Failure>]) {
        self.script = Mutex(script)
    }

    var calls: Int { contexts.withLock { $0.count } }

    func placeholder(in context: Context) -> TestEntry { TestEntry(date: .distantPast, label: "placeholder") }
    func snapshot(in context: Context) async -> TestEntry { TestEntry(date: .distantPast, label: "snapshot") }
    func timeline(in context: Context) async throws -> Timeline<TestEntry> {
        contexts.withLock { $0.append(context) }
        let next = script.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        guard let next else { return Timeline(entries: [], policy: .never) }
        return try next.get()
    }
}

private func entries(_ offsets: [TimeInterval], policy: TimelineReloadPolicy) -> Result<Timeline<TestEntry>, ScriptedProvider.Failure> {
    .success(Timeline(entries: offsets.map { TestEntry(date: at($0), label: "t\(Int($0))") }, policy: policy))
}

@Suite("TimelineDriver", .serialized)
@MainActor
struct TimelineDriverTests {
    @Test("arms exactly one wake-up, at the next entry, and advances panels on the clock")
    func oneWakeUp() async {
        let clock = ManualClock(now: testEpoch)
        let driver = TimelineDriver(clock: clock)
        let redraws = Mutex<[WidgetInstanceID]>([])
        driver.onChange = { ids in redraws.withLock { $0 += ids } }
        let provider = ScriptedProvider([entries([0, 60, 120], policy: .never)])
        let id = driver.add(kind: "clock", family: .small, size: CellSize(columns: 20, rows: 5), provider: AnyTimelineProvider(provider))
        #expect(clock.pendingCount == 1, "the request's timeout is the only wake-up")
        await driver.settle()
        #expect(shownLabel(driver.status(of: id)) == "t0")
        #expect(clock.pendingCount == 1)
        #expect(clock.nextScheduledDate == at(60))
        clock.advance(to: at(60))
        #expect(shownLabel(driver.status(of: id)) == "t60")
        clock.advance(to: at(120))
        #expect(shownLabel(driver.status(of: id)) == "t120")
        expectNoPendingWork(clock)
        #expect(redraws.withLock { $0 }.filter { $0 == id }.count >= 3)
        #expect(provider.contexts.withLock { $0.first?.size } == CellSize(columns: 20, rows: 5))
    }

    @Test("WidgetCenter reloads from another thread reach the scheduler through the loop")
    func widgetCenterFromAnyThread() async {
        let clock = ManualClock(now: testEpoch)
        let center = WidgetCenter()
        let driver = TimelineDriver(clock: clock, configuration: .init(minimumReloadInterval: 1), center: center)
        let provider = ScriptedProvider([entries([0], policy: .never), entries([10], policy: .never)])
        let id = driver.add(kind: "leaderboard", family: .large, size: CellSize(columns: 40, rows: 12), provider: AnyTimelineProvider(provider))
        await driver.settle()
        clock.advance(to: at(10))
        let thread = Task.detached { center.reloadTimelines(ofKind: "leaderboard") }
        await thread.value
        await driver.settle()
        #expect(provider.calls == 2)
        #expect(shownLabel(driver.status(of: id)) == "t10")
        #expect(center.currentConfigurations().map(\.kind) == ["leaderboard"])
        expectNoPendingWork(clock)
    }

    @Test("a thrown error keeps the entry, is shown, and is retried after the backoff")
    func errorThenRetry() async {
        let clock = ManualClock(now: testEpoch)
        let driver = TimelineDriver(clock: clock, configuration: .init(minimumReloadInterval: 1, retryBaseDelay: 10))
        let provider = ScriptedProvider([
            entries([0], policy: .after(at(30))),
            .failure(.init(description: "connection refused")),
            entries([40], policy: .never),
        ])
        let id = driver.add(kind: "k", family: .small, size: .zero, provider: AnyTimelineProvider(provider))
        await driver.settle()
        clock.advance(to: at(30))
        await driver.settle()
        let status = driver.status(of: id)
        #expect(shownLabel(status) == "t0")
        #expect(status?.lastFailure?.message == "connection refused")
        let retry = try! #require(status?.nextReload)
        #expect(retry >= at(35) && retry <= at(40))
        clock.advance(to: retry)
        await driver.settle()
        clock.advance(to: at(40))
        #expect(shownLabel(driver.status(of: id)) == "t40")
        #expect(driver.status(of: id)?.lastFailure == nil)
        expectNoPendingWork(clock)
    }

    @Test("a user reload tells the provider it is user initiated")
    func userInitiatedContext() async {
        let clock = ManualClock(now: testEpoch)
        let driver = TimelineDriver(clock: clock)
        let provider = ScriptedProvider([entries([0], policy: .never), entries([0], policy: .never)])
        let id = driver.add(kind: "k", family: .medium, size: .zero, provider: AnyTimelineProvider(provider))
        await driver.settle()
        driver.reload(id, userInitiated: true)
        await driver.settle()
        #expect(provider.contexts.withLock { $0.map(\.isUserInitiated) } == [false, true])
        expectNoPendingWork(clock)
    }
}

@Suite("TimelineDriver batches", .serialized)
@MainActor
struct TimelineDriverBatchTests {
    @Test("instances added and sized in a batch send their first request with that size")
    func batchSizesFirstRequest() async {
        let clock = ManualClock(now: testEpoch)
        let driver = TimelineDriver(clock: clock)
        let provider = ScriptedProvider([entries([0], policy: .never)])
        driver.batch {
            let id = driver.add(kind: "k", family: .large, size: .zero, provider: AnyTimelineProvider(provider))
            driver.resize(id, to: CellSize(columns: 52, rows: 21))
        }
        await driver.settle()
        #expect(provider.contexts.withLock { $0.map(\.size) } == [CellSize(columns: 52, rows: 21)])
    }
}
