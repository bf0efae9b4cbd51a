import Dispatch
import Glibc
import Synchronization

/// The leaderboard game behind an HTTP server, ticking on a timer: for `leaderboard-server`
/// and for the default dashboard, which runs it in process.
///
/// Serves `GET /leaderboard` (the board as JSON, with an ETag that changes only when the board
/// does, so `If-None-Match` gets 304 in between) and `GET /healthz` (`ok`). A Dispatch timer
/// plays one tick every `tickSeconds` on a private queue. Thread-safe.
///
/// ```swift
/// let service = LeaderboardService(configuration: .init(port: 0)) { line in log(line) }
/// let port = try service.start()     // service.url: "http://127.0.0.1:PORT/leaderboard"
/// defer { service.stop() }
/// ```
public final class LeaderboardService: Sendable {
    private struct State {
        var game: LeaderboardGame
        var response: HTTPResponse
        var server: HTTPServer?
        var timer: TimerBox?
        var started = false
        var stopped = false
    }

    public let configuration: LeaderboardServiceConfiguration
    private let log: (@Sendable (String) -> Void)?
    private let limitedLog: LimitedAccessLog?
    private let onTick: (@Sendable (LeaderboardGame) -> Void)?
    private let state: Mutex<State>

    /// Creates a stopped service; the game starts at the current wall time.
    ///
    /// - Parameter log: gets one access-log line per request (`AccessLogEntry.line`), on a
    ///   connection thread, or fewer with `accessLogLinesPerSecond` (plus the summary lines);
    ///   keep it quick and thread-safe.
    /// - Parameter onTick: gets the game after each tick of the timer, on the timer's queue
    ///   (a host can reload a widget, a test can wait for it).
    public init(configuration: LeaderboardServiceConfiguration = LeaderboardServiceConfiguration(),
                log: (@Sendable (String) -> Void)? = nil,
                onTick: (@Sendable (LeaderboardGame) -> Void)? = nil) {
        self.configuration = configuration
        self.log = log
        limitedLog = log.flatMap { log in
            configuration.accessLogLinesPerSecond.map { LimitedAccessLog(linesPerSecond: $0, write: log) }
        }
        self.onTick = onTick
        let game = LeaderboardGame(seed: configuration.seed ?? UInt64.random(in: .min ... .max),
                                   start: HTTPDate.nowSecondsSince1970(), rules: configuration.rules)
        state = Mutex(State(game: game, response: Self.response(for: game)))
    }

    deinit { stop() }

    /// Binds, starts serving and starts the tick timer; returns the bound port.
    ///
    /// Throws `ServerError` when the address is bad or taken (unless `fallbackToFreePort`, which
    /// then takes a free port), or when called a second time.
    @discardableResult
    public func start() throws(ServerError) -> UInt16 {
        let again = state.withLock { s -> Bool in
            defer { s.started = true }
            return s.started
        }
        if again { throw .notStartable }
        var server = makeServer(port: configuration.port)
        let port: UInt16
        do {
            port = try server.start()
        } catch .system("bind", EADDRINUSE) where configuration.fallbackToFreePort && configuration.port != 0 {
            server = makeServer(port: 0)
            port = try server.start()
        }
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "LeaderboardService.tick"))
        let period = DispatchTimeInterval.seconds(max(1, configuration.tickSeconds))
        timer.schedule(deadline: .now() + period, repeating: period, leeway: .milliseconds(50))
        timer.setEventHandler { [weak self] in self?.timerFired() }
        let box = TimerBox(timer)
        let stoppedMeanwhile = state.withLock { s -> Bool in
            guard !s.stopped else { return true }
            s.server = server
            s.timer = box
            return false
        }
        if stoppedMeanwhile {
            server.stop()
            throw .notStartable
        }
        timer.activate()
        return port
    }

    /// The bound port while running, else nil.
    public var port: UInt16? { state.withLock { $0.server?.port } }

    /// `http://HOST:PORT/leaderboard` while running (IPv6 hosts in brackets), else nil.
    public var url: String? {
        guard let port else { return nil }
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)/leaderboard"
    }

    /// A copy of the game as it stands.
    public var game: LeaderboardGame { state.withLock { $0.game } }

    /// Plays `ticks` ticks now (the timer calls this with 1; tests call it directly).
    public func advance(ticks: Int) {
        state.withLock { s in
            s.game.advance(ticks: ticks)
            s.response = Self.response(for: s.game)
        }
    }

    private func timerFired() {
        limitedLog?.flush()
        advance(ticks: 1)
        if let onTick { onTick(game) }
    }

    /// Stops the timer and the server (waiting for requests in progress). Idempotent; a stopped
    /// service cannot start again.
    public func stop() {
        let (server, timer) = state.withLock { s -> (HTTPServer?, TimerBox?) in
            defer { s.server = nil; s.timer = nil; s.started = true; s.stopped = true }
            return (s.server, s.timer)
        }
        timer?.timer.cancel()
        server?.stop()
        limitedLog?.finish()
    }

    private func makeServer(port: UInt16) -> HTTPServer {
        var config = HTTPServerConfiguration(host: configuration.host, port: port)
        config.faults = configuration.faults
        var accessLog: (@Sendable (AccessLogEntry) -> Void)?
        if let limitedLog {
            accessLog = { entry in limitedLog.log(entry) }
        } else if let log {
            accessLog = { entry in log(entry.line) }
        }
        let server = HTTPServer(configuration: config, accessLog: accessLog)
        server.route("/leaderboard") { [weak self] _ -> HTTPResponse in
            guard let self else { return .text("Service Unavailable\n", status: 503) }
            return state.withLock { $0.response }
        }
        server.route("/healthz") { _ in .text("ok") }
        return server
    }

    private static func response(for game: LeaderboardGame) -> HTTPResponse {
        var response = HTTPResponse.json(game.boardJSON())
        response.headers.set("Cache-Control", "no-cache")
        return response
    }
}

/// Dispatch sources are thread-safe to cancel, but the overlay does not mark them Sendable.
private final class TimerBox: @unchecked Sendable {
    let timer: any DispatchSourceTimer
    init(_ timer: any DispatchSourceTimer) { self.timer = timer }
}
