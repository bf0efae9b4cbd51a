@testable import BackgroundSessions
import FoundationEssentials
import Glibc
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

private let boardURL = "http://127.0.0.1:9/leaderboard"

/// How the fake server answers a fetch.
enum FakeBoardAnswer: Sendable, CustomStringConvertible {
    case status(Int)
    case garbage
    case board
    case retryAfter(seconds: Int64)

    var description: String {
        switch self {
        case .status(let code): "HTTP \(code)"
        case .garbage: "a garbage body"
        case .board: "a board"
        case .retryAfter(let seconds): "Retry-After: \(seconds)"
        }
    }
}

/// The leaderboard widget as the host wires it — session manager with its journal and event
/// routing, `TimelineDriver`, `WidgetCenter` — on a `FakeTransport` and a `ManualClock`, so
/// every fetch can be answered by hand at a simulated moment.
@MainActor
private final class SimulatedHost {
    let directory = TemporaryStateDirectory()
    let clock = ManualClock(now: at(0))
    let transport = FakeTransport()
    let center = WidgetCenter()
    let manager: BackgroundSessionManager
    let context: WidgetContext
    let widget: TerminalWidget
    let driver: TimelineDriver
    var instance = WidgetInstanceID(rawValue: 0)
    /// The simulated moment (seconds after `at(0)`) of every request, in order.
    var requestTimes: [TimeInterval] = []


    /// - Parameter saved: a state in the container before the panel starts (a restart).
    init(url: String = boardURL, refreshSeconds: Int = 10, saved: LeaderboardState? = nil) throws {
        manager = try BackgroundSessionManager.open(stateDirectory: directory.path + "/state", transport: transport, clock: clock)
        let clock = clock
        context = WidgetContext(sessions: manager, stateDirectory: directory.path + "/state", center: center, now: { clock.now })
        if let saved { LeaderboardStore(context: context).save(saved, session: "leaderboard") }
        widget = LeaderboardWidget.configuration(context: context, registry: LeaderboardSessionRegistry())
        let widgets = [widget]
        manager.eventRouter = BackgroundSessionManager.router(for: { widgets })
        driver = TimelineDriver(clock: clock, configuration: SchedulerConfiguration(minimumReloadInterval: 5), center: center)
        instance = try add(url: url, refreshSeconds: refreshSeconds)
    }

    /// Adds a leaderboard panel for `url` (after removing the current one, for a config change).
    func add(url: String, refreshSeconds: Int = 10) throws -> WidgetInstanceID {
        let provider = try widget.makeProvider(WidgetOptions(["url": .string(url), "refreshSeconds": .integer(refreshSeconds)]))
        return driver.add(kind: LeaderboardWidget.kind, family: .large, size: CellSize(columns: 52, rows: 21), provider: provider)
    }

    var entry: LeaderboardEntry? { driver.status(of: instance)?.entry as? LeaderboardEntry }
    var store: LeaderboardStore { LeaderboardStore(context: context) }
    var now: TimeInterval { clock.now.timeIntervalSince(at(0)) }

    /// Lets reloads run and answers each fetch they start with `answer`, until nothing is left
    /// to do at this moment (at most 50 fetches: enough to show a hot loop).
    func answerFetches(_ answer: (TransferRequest) -> FakeBoardAnswer) async {
        await driver.settle()
        for _ in 0..<50 {
            guard let id = transport.runningIDs.first else { return }
            let request = transport.startedRequests[Int(id.rawValue) - 1]
            requestTimes.append(now)
            finish(id, request: request, answer(request))
            // Delivered (saved, reloads asked) and acknowledged, or held for a failed save.
            _ = await eventually(within: 5) { self.manager.pendingEvents.isEmpty || self.store.load(session: "leaderboard").saveError != nil }
            await driver.settle()
        }
    }

    func finish(_ id: TransferID, request: TransferRequest, _ answer: FakeBoardAnswer) {
        func body(_ text: String) -> TransferResult {
            let bytes = Array(text.utf8)
            let fd = Glibc.open(request.destinationPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress!, bytes.count) }
            Glibc.close(fd)
            return .downloaded(DownloadedFile(path: request.destinationPath, status: 200, byteCount: bytes.count,
                                              validators: Validators(), attempts: 1))
        }
        let result: TransferResult = switch answer {
        case .status(let code):
            .failed(TransferFailure(kind: .httpStatus(code), reason: "server answered \(code)", attempts: code >= 500 ? 3 : 1))
        case .garbage: body("<html>not a board</html>")
        case .board: body(designExample)
        case .retryAfter(let seconds):
            .failed(TransferFailure(kind: .httpStatus(429), reason: "server answered 429", attempts: 1,
                                    retryAfter: .seconds(seconds)))
        }
        transport.finish(id, with: result)
    }

    /// Runs simulated time on, one second at a time, until `seconds` after `at(0)`, answering
    /// every fetch with `answer`.
    func run(until seconds: TimeInterval, _ answer: FakeBoardAnswer) async {
        await answerFetches { _ in answer }
        while now < seconds {
            clock.advance(by: 1)
            driver.tick()
            await answerFetches { _ in answer }
        }
    }

    /// A user reload (`r`) now, its fetches answered with `answer`.
    func userReload(_ answer: FakeBoardAnswer) async {
        driver.reload(instance, userInitiated: true)
        await answerFetches { _ in answer }
    }

    func close() async {
        await driver.settle()
        for id in transport.runningIDs { transport.finish(id, with: .cancelled) }
        _ = await eventually(within: 5) { self.manager.pendingEvents.isEmpty }
        driver.remove(instance)
        manager.close()
    }
}

@Suite("Leaderboard fetches back off after failures, in simulated time", .serialized)
@MainActor
struct LeaderboardBackoffTests {
    @Test("with no board yet, failures back off (10, 20, 40, 80 s…) instead of fetching on every reload",
          arguments: [FakeBoardAnswer.status(404), .status(500), .garbage])
    func failuresBackOffWithoutBoard(answer: FakeBoardAnswer) async throws {
        let host = try SimulatedHost()
        await host.run(until: 21, answer)
        #expect(host.requestTimes == [0, 10], "\(answer): requests in the first 21 s at \(host.requestTimes)")
        await host.run(until: 200, answer)
        #expect(host.requestTimes == [0, 10, 30, 70, 150], "\(answer): \(host.requestTimes)")
        let entry = try #require(host.entry)
        #expect(entry.board == nil && entry.isFetching == false)
        let error = try #require(entry.fetchError)
        // The fifth failure (at 150 s) waits 160 s: the entry shown counts down to 310 s.
        let left = Int(310 - entry.date.timeIntervalSince(at(0)))
        #expect(error.hasSuffix(" · retry in \(left)s"), "the panel says when it tries again: \(error)")
        await host.close()
    }

    @Test("the wait doubles up to 5 minutes; a user reload fetches at once; a board resets the backoff")
    func backoffCapAndReset() async throws {
        let host = try SimulatedHost()
        await host.run(until: 1000, .status(404))
        #expect(host.requestTimes == [0, 10, 30, 70, 150, 310, 610, 910])
        await host.userReload(.board)
        #expect(host.requestTimes.last == 1000, "r fetches now, whatever the backoff")
        let entry = try #require(host.entry)
        #expect(entry.board?.heroes.first?.name == "Spouty" && entry.fetchError == nil)
        await host.run(until: 1025, .board)
        #expect(host.requestTimes.suffix(3) == [1000, 1010, 1020], "after a board, fetches come every refreshSeconds again")
        await host.close()
    }

    @Test("with a board, a failure backs off too and the board stays")
    func failuresBackOffWithBoard() async throws {
        let host = try SimulatedHost()
        await host.run(until: 0, .board)
        await host.run(until: 100, .status(503))
        #expect(host.requestTimes == [0, 10, 20, 40, 80])
        #expect(host.entry?.board?.heroes.count == 1)
        #expect(host.entry?.fetchError?.hasPrefix("server answered 503 · retry in ") == true, "\(host.entry?.fetchError ?? "nil")")
        await host.close()
    }

    // MARK: Retry-After (item 6)

    @Test("a Retry-After of 1000 days is kept as the transport's 300 s cap: the panel fetches again after 5 minutes")
    func retryAfterIsCapped() async throws {
        let host = try SimulatedHost()
        await host.run(until: 0, .retryAfter(seconds: 86_400_000))
        let saved = host.store.load(session: "leaderboard")
        #expect(saved.retryAfterUntil == at(300), "stored capped: \(String(describing: saved.retryAfterUntil))")
        #expect(host.entry?.fetchError == "server answered 429 · retry in 300s")
        await host.run(until: 299, .board)
        #expect(host.requestTimes == [0], "the server's wait is honoured")
        await host.run(until: 301, .board)
        #expect(host.requestTimes == [0, 300])
        #expect(host.entry?.board != nil && host.entry?.fetchError == nil)
        await host.close()
    }

    @Test("a Retry-After stored by an older version (1000 days) still lets the panel fetch within 5 minutes")
    func storedRetryAfterFromOldFileIsBounded() async throws {
        var state = LeaderboardState()
        state.failed("server answered 429", at: at(-1))
        state.consecutiveFailures = 0
        state.retryAfterUntil = at(86_400_000)
        let restarted = try SimulatedHost(saved: state)
        await restarted.run(until: 400, .board)
        #expect(restarted.requestTimes.first.map { $0 <= 300 } == true, "first fetch at \(restarted.requestTimes)")
        await restarted.close()
    }

    @Test("a user reload clears the server's stored Retry-After")
    func userReloadClearsRetryAfter() async throws {
        let host = try SimulatedHost()
        await host.run(until: 30, .retryAfter(seconds: 86_400_000))
        #expect(host.requestTimes == [0])
        await host.userReload(.board)
        #expect(host.requestTimes == [0, 30])
        #expect(host.entry?.board != nil && host.entry?.fetchError == nil)
        await host.close()
    }

    @Test("a Retry-After belongs to its URL: after a config change to another URL the panel fetches at once")
    func retryAfterIsKeyedByURL() async throws {
        let host = try SimulatedHost()
        await host.run(until: 30, .retryAfter(seconds: 200))
        #expect(host.requestTimes == [0])
        host.driver.remove(host.instance)
        host.instance = try host.add(url: "http://127.0.0.1:9/other")
        await host.answerFetches { _ in .board }
        #expect(host.requestTimes == [0, 30], "the new URL is fetched now")
        #expect(host.transport.startedRequests.last?.url == "http://127.0.0.1:9/other")
        #expect(host.entry?.board != nil && host.entry?.fetchError == nil)
        await host.close()
    }

    // MARK: A failed save (item 14)

    @Test("a board that cannot be saved is not acknowledged: the journal keeps it, the panel shows it and why, and it is saved once it can be")
    func failedSaveKeepsEvent() async throws {
        let host = try SimulatedHost()
        // The board's file is a directory: the atomic rename onto it fails (as a full disk
        // would), even for root.
        let container = try #require(host.context.container(kind: "leaderboard"))
        try container.write([], to: "other-file")   // creates the container's directory
        let target = container.path + "/board-leaderboard.json"
        #expect(mkdir(target, 0o700) == 0)

        await host.run(until: 0, .board)
        #expect(host.requestTimes == [0])
        #expect(await eventually { host.entry?.fetchError?.hasPrefix("cannot save the board: Is a directory") == true },
                "the panel says why: \(host.entry?.fetchError ?? "nil")")
        #expect(host.entry?.board?.heroes.first?.name == "Spouty", "the board delivered is shown from memory")
        #expect(host.manager.pendingEvents.count == 1, "not acknowledged: a crash now re-delivers the board")

        await host.run(until: 60, .board)
        #expect(host.requestTimes == [0], "no fetch while its result could not be kept either")
        #expect(host.manager.pendingEvents.count == 1)

        #expect(rmdir(target) == 0)
        host.clock.advance(by: 10)
        host.driver.tick()
        await host.answerFetches { _ in .board }
        #expect(await eventually { host.manager.pendingEvents.isEmpty }, "saved, then acknowledged")
        let onDisk = try #require(try container.read("board-leaderboard.json"))
        let state = try JSONDecoder().decode(LeaderboardState.self, from: Data(onDisk))
        #expect(state.board?.heroes.first?.name == "Spouty")
        #expect(host.entry?.fetchError == nil)
        await host.close()
    }
}
