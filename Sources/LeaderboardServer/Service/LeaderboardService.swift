import Dispatch
import Glibc
import Synchronization

/// The leaderboard game behind an HTTP server, ticking on a timer: for `leaderboard-server`
/// and for the default dashboard, which runs it in process.
///
/// Serves `GET /leaderboard` (the board as JSON, with an ETag that changes only when the board
/// does, so `If-None-Match` gets 304 in between), `GET /events` (server-sent events: one
/// `board` event per change of the board's version, see `BoardEventText`), `POST
/// /heroes/NAME/heal` (NAME percent-encoded, e.g. `Power%20Panda`; 202) and `GET /healthz`
/// (`ok`). A Dispatch timer plays one tick every `tickSeconds` on a private queue. Thread-safe.
///
/// The board's version starts at 1 and goes up by one on each change: a tick that changed the
/// board's bytes, or a heal that changed a hero's health.
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
        var version: UInt64 = 1
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
    private let hub: BoardEventHub

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
        hub = BoardEventHub(board: .init(version: 1, updated: ISO8601.format(secondsSince1970: game.updated)),
                            maxStreams: configuration.maxStreams, takeoverAfter: configuration.streamTakeoverAfter)
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

    /// `http://HOST:PORT/events` while running, else nil.
    public var eventsURL: String? {
        url.map { String($0.dropLast("/leaderboard".count)) + "/events" }
    }

    /// A copy of the game as it stands.
    public var game: LeaderboardGame { state.withLock { $0.game } }

    /// The board's version: 1 at start, one more for each change.
    public var version: UInt64 { state.withLock { $0.version } }

    /// `GET /events` streams open now.
    public var openStreams: Int { hub.streamCount }

    /// Plays `ticks` ticks now (the timer calls this with 1; tests call it directly).
    public func advance(ticks: Int) {
        change { $0.advance(ticks: ticks) }
    }

    /// Heals the hero named `name` by `GameRules.healAmount` now; false if there is none.
    @discardableResult
    public func heal(_ name: String) -> Bool {
        var found = false
        change { game in found = game.heal(name, at: HTTPDate.nowSecondsSince1970()) }
        return found
    }

    /// Takes `amount` of the health of the hero named `name` (not below the floor), as a lost
    /// battle would; false if there is none. For benchmarks and tests that need a hero to heal.
    @discardableResult
    public func hurt(_ name: String, by amount: Double) -> Bool {
        var found = false
        change { game in found = game.hurt(name, by: amount, at: HTTPDate.nowSecondsSince1970()) }
        return found
    }

    /// Changes the game; when the board's bytes changed, a new version is published to streams.
    private func change(_ body: (inout LeaderboardGame) -> Void) {
        let published = state.withLock { s -> BoardEventHub.Board? in
            body(&s.game)
            let response = Self.response(for: s.game)
            guard response.etag != s.response.etag else { return nil }
            s.response = response
            s.version += 1
            return BoardEventHub.Board(version: s.version, updated: ISO8601.format(secondsSince1970: s.game.updated))
        }
        if let published { hub.publish(published) }
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
        server.route("/events") { [weak self] request -> HTTPResponse in
            guard let self else { return .text("Service Unavailable\n", status: 503) }
            return eventsResponse(request)
        }
        for hero in state.withLock({ $0.game.heroes }) {
            // The hero's page: where a hero card's link (`o`) leads.
            server.route("/heroes/\(Self.percentEncoded(hero.name))") { [weak self] _ -> HTTPResponse in
                guard let self else { return .text("Service Unavailable\n", status: 503) }
                return state.withLock { state -> HTTPResponse in
                    let heroes = state.game.heroes
                    guard let now = heroes.first(where: { $0.name == hero.name }) else { return .text("Not Found\n", status: 404) }
                    let rank = (heroes.sorted { $0.exp > $1.exp }.firstIndex { $0.name == hero.name } ?? 0) + 1
                    return .text("\(now.avatar) \(now.name), \(now.heroType): rank \(rank), level \(now.level), \(now.exp) exp, "
                        + "health \(Int((now.health * 100).rounded()))%\n")
                }
            }
            server.route("/heroes/\(Self.percentEncoded(hero.name))/heal", methods: ["POST"], maxBodyBytes: 1024) {
                [weak self] _ -> HTTPResponse in
                guard let self else { return .text("Service Unavailable\n", status: 503) }
                return heal(hero.name) ? .text("Accepted\n", status: 202) : .text("Not Found\n", status: 404)
            }
        }
        return server
    }

    /// `GET /events`: 503 past `maxStreams` (unless a stream old enough gives up its place,
    /// see `BoardEventHub`), else a stream that sends `retry:`, the board at once if the
    /// client's `Last-Event-ID` is stale, then one event per new version and a comment every
    /// `keepaliveSeconds` (0: none, so a quiet stream costs no wake-up). TCP keep-alive
    /// probes, sent by the kernel, end a stream whose client vanished without closing.
    private func eventsResponse(_ request: HTTPRequest) -> HTTPResponse {
        guard let (subscription, subscribedBoard) = hub.subscribe() else {
            var busy = HTTPResponse.text("Service Unavailable: too many event streams\n", status: 503)
            busy.headers.set("Retry-After", "5")
            return busy
        }
        var response = HTTPResponse(headers: HTTPHeaders([("Content-Type", "text/event-stream"),
                                                          ("Cache-Control", "no-cache")]))
        let lastEventID = request.headers["Last-Event-ID"]
        let keepalive = configuration.keepaliveSeconds > 0 ? Duration.seconds(configuration.keepaliveSeconds) : nil
        let hub = hub
        response.stream = { stream in
            stream.probePeer(idle: .seconds(60), interval: .seconds(10), count: 3)
            guard stream.send(BoardEventText.preamble) else { return }
            // The board as of the subscription, not as of now: a change in between must still
            // be sent (its wake-up byte is already in the pipe).
            var board = subscribedBoard
            if BoardEventText.isStale(lastEventID: lastEventID, board: board) {
                guard stream.send(BoardEventText.event(board)) else { return }
            }
            while true {
                switch stream.wait(signal: subscription.signal, timeout: keepalive) {
                case .closed:
                    return
                case .timedOut:
                    guard stream.send(BoardEventText.keepAlive) else { return }
                case .signalled:
                    subscription.drain()
                    guard hub.holds(subscription) else { return }   // a newcomer took the slot
                    let now = hub.board
                    if now.version != board.version {
                        board = now
                        guard stream.send(BoardEventText.event(board)) else { return }
                    }
                }
            }
        }
        return response
    }

    /// `name` as a path segment: RFC 3986 unreserved characters kept, the rest `%XX` (UTF-8).
    static func percentEncoded(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
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
