import BackgroundSessions
import FoundationEssentials
import LeaderboardServer
import Synchronization
import TerminalUI
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// A real loopback `LeaderboardService`, a real `CurlTransport` and `BackgroundSessionManager`
/// on a temporary state directory, and a `TimelineDriver` on a `ManualClock` hosting a
/// leaderboard panel (large) and a hero panel (Spouty, small), routed like the host does.
@MainActor
private final class Rig {
    let directory = TemporaryStateDirectory()
    let service: LeaderboardService
    let clock = ManualClock(now: testEpoch)
    let transport: CurlTransport
    let manager: BackgroundSessionManager
    let center = WidgetCenter()
    let driver: TimelineDriver
    let store: LeaderboardStore
    /// The server's access log, one line per request.
    let accessLog = AccessLog()
    var leaderboard = WidgetInstanceID(rawValue: 0)
    var hero = WidgetInstanceID(rawValue: 0)
    /// Every leaderboard entry the driver delivered, in order.
    var delivered: [LeaderboardEntry] = []

    /// - Parameter url: another server's URL to fetch instead of the service's.
    init(faults: FaultInjection = FaultInjection(), refreshSeconds: Int = 60, url: String? = nil,
         seededState: ((Date) -> LeaderboardState)? = nil) throws {
        var configuration = LeaderboardServiceConfiguration(port: 0)
        configuration.seed = 42
        configuration.tickSeconds = 3600   // the test plays ticks itself with advance(ticks:)
        configuration.faults = faults
        service = LeaderboardService(configuration: configuration, log: { [accessLog] line in accessLog.append(line) })
        try service.start()

        var transportConfiguration = CurlTransportConfiguration()
        transportConfiguration.noProxy = "*"
        transportConfiguration.connectTimeout = .seconds(5)
        transportConfiguration.requestTimeout = .seconds(10)
        transportConfiguration.retry = RetryPolicy(maxAttempts: 2, baseDelay: .milliseconds(10), maxDelay: .milliseconds(50),
                                                   jitter: { 0.5 })
        transport = try CurlTransport(configuration: transportConfiguration)
        let state = directory.path + "/state"
        manager = try BackgroundSessionManager.open(stateDirectory: state, transport: transport, clock: clock)
        let clock = clock
        let context = WidgetContext(sessions: manager, stateDirectory: state, center: center, now: { clock.now })
        store = LeaderboardStore(context: context)
        if let seededState { store.save(seededState(clock.now), session: "leaderboard") }

        let registry = LeaderboardSessionRegistry()
        let widgets = [LeaderboardWidget.configuration(context: context, registry: registry), HeroWidget.configuration(context: context)]
        manager.eventRouter = BackgroundSessionManager.router(for: { widgets })
        // Providers on a thread of their own, as in the dashboard: Swift's cooperative pool has
        // one thread per core, and a full test run's synchronous tests can hold both for seconds.
        driver = TimelineDriver(clock: clock, configuration: SchedulerConfiguration(minimumReloadInterval: 5), center: center,
                                providerExecutor: Self.providerExecutor)
        let url = try #require(url ?? service.url)
        let leaderboardProvider = try widgets[0].makeProvider(
            WidgetOptions(["url": .string(url), "refreshSeconds": .integer(refreshSeconds)]))
        let heroProvider = try widgets[1].makeProvider(WidgetOptions(["name": .string("Spouty")]))
        driver.onChange = { [unowned self] ids in
            guard ids.contains(leaderboard), let entry = self.entry else { return }
            if delivered.last != entry { delivered.append(entry) }
        }
        leaderboard = driver.add(kind: LeaderboardWidget.kind, family: .large, size: CellSize(columns: 52, rows: 21),
                                 provider: leaderboardProvider)
        hero = driver.add(kind: HeroWidget.kind, family: .small, size: CellSize(columns: 24, rows: 7), provider: heroProvider)
    }

    /// One provider thread for every rig (a parked thread costs nothing between tests).
    private static let providerExecutor = ThreadTaskExecutor()

    var entry: LeaderboardEntry? { driver.status(of: leaderboard)?.entry as? LeaderboardEntry }
    var heroEntry: HeroEntry? { driver.status(of: hero)?.entry as? HeroEntry }
    var saved: LeaderboardState { store.load(session: "leaderboard") }
    var boardRequests: [String] { accessLog.lines.filter { $0.contains("/leaderboard") } }
    /// Waits until the server has logged `count` board requests (it logs after sending, so a
    /// client can be quicker than its log line).
    func logged(_ count: Int) async -> Bool {
        await eventually { self.boardRequests.count >= count } && boardRequests.count == count
    }
    var runningTasks: Int { manager.session(identifier: "leaderboard").allTasks.filter { $0.state == .running }.count }

    /// The leaderboard panel's content as the default dashboard at 80x24 shows it.
    var frame: [String] {
        guard let entry else { return [] }
        return TextBackend.lines(render(entry, family: .large, width: 52, height: 21))
    }

    /// Waits (wall clock, with a deadline) until the first board is shown.
    func firstBoard(sourceLocation: SourceLocation = #_sourceLocation) async throws -> LeaderboardBoard {
        let shown = await eventually { self.entry?.board?.heroes.count == 6 }
        #expect(shown, "the first board never arrived: \(String(describing: self.entry?.fetchError))", sourceLocation: sourceLocation)
        return try #require(saved.board, sourceLocation: sourceLocation)
    }

    /// Moves the manual clock on by `seconds`, past the next policy reload.
    func advance(by seconds: TimeInterval) {
        clock.advance(by: seconds)
    }

    func close() async {
        await driver.settle()
        // Let deliveries still on their way finish before the manager closes.
        _ = await eventually(within: 5) { self.manager.pendingEvents.isEmpty && self.runningTasks == 0 }
        driver.remove(leaderboard)
        driver.remove(hero)
        expectNoPendingWork(clock)
        manager.close()
        transport.shutdown()
        service.stop()
    }
}

/// The body a hand-made server answers with, settable while it runs.
private final class Body: Sendable {
    private let value: Mutex<[UInt8]>
    init(_ bytes: [UInt8]) { value = Mutex(bytes) }
    var bytes: [UInt8] {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
}

/// The server's access-log lines, thread-safely.
private final class AccessLog: Sendable {
    private let value = Mutex<[String]>([])
    func append(_ line: String) { value.withLock { $0.append(line) } }
    var lines: [String] { value.withLock { $0 } }
}

@Suite("Leaderboard against a real loopback server", .serialized, .onOwnThreads(.blockingCalls))
@MainActor
struct LeaderboardIntegrationTests {
    @Test("the provider answers at once with the empty state; the session events save the board and reload leaderboard and hero")
    func firstFetch() async throws {
        let rig = try Rig()
        let board = try await rig.firstBoard()

        let first = try #require(rig.delivered.first)
        #expect(first.board == nil && first.isFetching && first.fetchError == nil,
                "the first answer does not wait for the network")
        #expect(TextBackend.lines(render(first, family: .large, width: 52, height: 21)).last == "fetching…")

        #expect(board.heroes.map(\.name) == rig.service.game.heroes.map(\.name), "the container holds the server's board, ranked")
        #expect(rig.saved.fetchedAt == testEpoch && rig.saved.lastError == nil)
        let frame = rig.frame
        for name in ["Octo", "Spouty", "Cake", "Mr. Spook", "Egghead", "Power Panda"] {
            #expect(frame.contains { $0.contains(name) }, "\(name) on the panel")
        }
        #expect(frame.last == "updated <1m ago")
        #expect(await eventually { rig.heroEntry?.hero?.name == "Spouty" }, "the hero widget was reloaded through WidgetCenter")
        #expect(rig.heroEntry?.rank == board.rank(of: "Spouty"))
        #expect(await eventually { rig.manager.pendingEvents.isEmpty }, "events acknowledged after the completion")
        #expect(await rig.logged(1))
        await rig.close()
    }

    @Test("a fetch after a server tick shows the change with the previous board kept; a 304 keeps the board")
    func secondFetchAndNotModified() async throws {
        let rig = try Rig()
        let firstBoard = try await rig.firstBoard()

        rig.service.advance(ticks: 3)
        rig.advance(by: 60)
        #expect(await eventually { rig.entry?.previous != nil }, "second board: \(String(describing: rig.entry?.fetchError))")
        let entry = try #require(rig.entry)
        #expect(entry.previous == firstBoard)
        let second = try #require(entry.board)
        #expect(second.heroes.map(\.exp) == rig.service.game.heroes.map(\.exp))
        let gainers = second.heroes.filter { hero in (firstBoard.hero(named: hero.name)?.exp ?? 0) < hero.exp }
        #expect(!gainers.isEmpty, "three battles gave someone exp")
        for gainer in gainers {
            let row = rig.frame.first { $0.contains(gainer.name) } ?? ""
            #expect(row.contains("+"), "\(gainer.name)'s gain is shown: \(row)")
        }
        #expect(await rig.logged(2))

        rig.advance(by: 60)
        #expect(await eventually { rig.entry?.fetchedAt == at(120) }, "the 304 refreshed the age")
        #expect(await rig.logged(3))
        #expect(rig.boardRequests.last?.contains(" 304 ") == true, "answered 304: \(rig.boardRequests.last ?? "")")
        let confirmed = try #require(rig.entry)
        #expect(confirmed.board?.heroes.map(\.exp) == second.heroes.map(\.exp) && confirmed.previous == firstBoard)
        #expect(confirmed.fetchError == nil)
        #expect(rig.frame.last == "updated <1m ago")
        await rig.close()
    }

    @Test("with the server stopped the panel keeps the board and the entry carries the error")
    func serverStopped() async throws {
        let rig = try Rig()
        let board = try await rig.firstBoard()
        rig.service.stop()
        rig.advance(by: 60)
        #expect(await eventually(within: 15) { rig.entry?.fetchError != nil })
        let entry = try #require(rig.entry)
        #expect(entry.board?.heroes.map(\.name) == board.heroes.map(\.name))
        #expect(entry.fetchedAt == testEpoch)
        let footer = rig.frame.last ?? ""
        #expect(footer.hasPrefix("⚠ ") && footer.hasSuffix(" · board 1m old"), "footer: \(footer)")
        let reason = try #require(rig.saved.lastError)
        #expect(entry.fetchError == reason + " · retry in 60s", "a failure backs off, and the panel says until when")
        await rig.close()
    }

    @Test("a garbage body gives a clear error and the board already there stays")
    func garbageBody() async throws {
        var faults = FaultInjection()
        faults.garbageRate = 1
        let rig = try Rig(faults: faults, seededState: { now in
            var state = LeaderboardState()
            state.received(LeaderboardDecoder.Result(board: rosterBoard, skipped: 0), at: now - 120)
            return state
        })
        #expect(await eventually { rig.entry?.fetchError != nil })
        let entry = try #require(rig.entry)
        #expect(entry.fetchError == "the server's answer is not a leaderboard (not JSON) · retry in 60s")
        #expect(entry.board?.heroes == rosterBoard.heroes.map { hero in
            var hero = hero
            hero.health = hero.health(after: 120)
            return hero
        }, "the seeded board, health projected")
        let footer = rig.frame.last ?? ""
        #expect(footer.hasPrefix("⚠ the server's answer") && footer.hasSuffix("… · retry in 60s · board 2m old"), "footer: \(footer)")
        #expect(await rig.logged(1))
        #expect(rig.boardRequests.first?.contains("fault=garbageBody") == true)
        await rig.close()
    }

    @Test("a user-initiated reload while a download runs joins it: one task, one request")
    func userReloadJoins() async throws {
        var faults = FaultInjection()
        // Long enough that a loaded machine (a full parallel test run) still sees it running.
        faults.delay = .milliseconds(Int64(2_500 * TestTimeScale.factor))
        let rig = try Rig(faults: faults)
        #expect(await eventually { !rig.delivered.isEmpty })
        #expect(rig.runningTasks == 1)
        rig.driver.reload(rig.leaderboard, userInitiated: true)
        await rig.driver.settle()
        if rig.entry?.board == nil {
            #expect(rig.entry?.isFetching == true)
            #expect(rig.runningTasks == 1, "the user reload did not start a second task")
        }
        _ = try await rig.firstBoard()
        #expect(await rig.logged(1), "both provider calls shared one download")
        #expect(rig.delivered.filter { $0.board == nil }.allSatisfy { $0.isFetching })
        await rig.close()
    }

    @Test("a 304 after a body the widget refused must not pass the old board off as current")
    func notModifiedAfterRefusedBody() async throws {
        let body = Body(LeaderboardGame(seed: 1, start: 1_796_014_800).boardJSON())
        let server = HTTPServer()
        server.route("/leaderboard") { _ in .json(body.bytes) }   // .json sets an ETag of the bytes
        let port = try server.start()
        defer { server.stop() }
        let rig = try Rig(url: "http://127.0.0.1:\(port)/leaderboard")
        _ = try await rig.firstBoard()

        body.bytes = Array(#"{"heroes": []}"#.utf8)   // valid JSON, with an ETag, but no 'updated'
        rig.advance(by: 60)
        #expect(await eventually { rig.entry?.fetchError?.hasPrefix("the server's answer has no 'updated'") == true })

        rig.advance(by: 60)   // the server has not changed: the transport's If-None-Match gets a 304
        // Saved, then acknowledged: the ack comes after the delegate's WidgetCenter reload.
        #expect(await eventually { rig.saved.lastAttempt == at(120) && rig.manager.pendingEvents.isEmpty })
        await rig.driver.settle()
        // The transport remembers the ETag of every 200 body, even one the widget refused; the
        // next 304 means "still that unusable body", not "your board is current".
        #expect(rig.entry?.fetchError != nil, "the panel should still say the server's answer is unusable")
        await rig.close()
    }
}
