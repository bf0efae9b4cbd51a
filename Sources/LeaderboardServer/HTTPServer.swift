import Glibc
import Synchronization

/// A small HTTP/1.1 server: routes by exact path, keep-alive, bounded requests, fault injection.
///
/// One thread accepts; each connection is served by its own thread, which holds it only while
/// the client keeps within `requestTimeout` (per request) and `idleTimeout` (between requests).
/// Handlers run on connection threads, possibly several at once: they must be thread-safe.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0))
/// server.route("/hello") { _ in .text("hi\n") }
/// let port = try server.start()
/// defer { server.stop() }
/// ```
public final class HTTPServer: Sendable {
    /// A route's handler: called on a connection thread for every matching request.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    struct Route: Sendable {
        var methods: Set<String>
        /// Largest request body this route reads; a longer one is answered 413 unread.
        var maxBodyBytes: Int
        var handler: Handler
    }

    private struct State {
        var routes: [String: Route] = [:]
        var listenFD: Int32 = -1
        var wakeRead: Int32 = -1
        var wakeWrite: Int32 = -1
        var acceptThread: pthread_t?
        var port: UInt16?
        var started = false
        var stopping = false
        var connections: [ObjectIdentifier: ConnectionSocket] = [:]
        var connectionLimit = 0
    }

    public let configuration: HTTPServerConfiguration
    private let accessLog: (@Sendable (AccessLogEntry) -> Void)?
    private let state = Mutex(State())
    private let liveConnections = ZeroWaitCounter()
    private let requestCounter = Atomic<UInt64>(0)

    /// Creates a stopped server.
    ///
    /// - Parameter accessLog: called once per answered (or cut-off) request, on a connection
    ///   thread; keep it quick and thread-safe.
    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(),
                accessLog: (@Sendable (AccessLogEntry) -> Void)? = nil) {
        self.configuration = configuration
        self.accessLog = accessLog
    }

    deinit { stop() }

    /// Registers `handler` for requests whose path (target without query) is exactly `path`.
    ///
    /// Other methods on that path are answered 405 with an `Allow` header. `HEAD` is answered
    /// from the handler's response without its body. May be called at any time, from any thread;
    /// a later registration of the same path replaces the earlier one.
    ///
    /// - Parameter maxBodyBytes: the largest request body the route takes (at most the
    ///   configuration's `maxBodyBytes`). A request announcing more, or a chunked body on a route
    ///   that takes none, is answered 413 before any of its body is read, and the connection
    ///   closed. The default, 0, is for routes that take no body.
    public func route(_ path: String, methods: Set<String> = ["GET", "HEAD"], maxBodyBytes: Int = 0,
                      _ handler: @escaping Handler) {
        let limit = max(0, min(maxBodyBytes, configuration.maxBodyBytes))
        state.withLock { $0.routes[path] = Route(methods: methods, maxBodyBytes: limit, handler: handler) }
    }

    /// The bound port once started, else nil.
    public var port: UInt16? { state.withLock { $0.port } }

    /// Connections served at once: `maxConnections`, lowered at `start()` to stay well below
    /// the process's descriptor limit (see `connectionLimit(configured:descriptorLimit:)`).
    /// 0 before `start()`.
    public var connectionLimit: Int { state.withLock { $0.connectionLimit } }

    /// The most connections to serve with `descriptorLimit` descriptors: `configured`, but
    /// leaving a quarter of the descriptors (at least 32) to the rest of the process — the
    /// dashboard shares them with curl, SQLite and its files — and always at least 1.
    static func connectionLimit(configured: Int, descriptorLimit: rlim_t) -> Int {
        let descriptors = Int(clamping: descriptorLimit)
        let spare = max(32, descriptors / 4)
        return max(1, min(configured, descriptors - spare))
    }

    /// Binds, listens and starts accepting; returns the bound port.
    ///
    /// Ignores SIGPIPE for the process (answers are sent with MSG_NOSIGNAL too).
    /// Throws `ServerError` if the address is bad or taken, or if called twice.
    @discardableResult
    public func start() throws(ServerError) -> UInt16 {
        signal(SIGPIPE, SIG_IGN)
        let started = state.withLock { s -> Bool in
            defer { s.started = true }
            return s.started || s.stopping
        }
        if started { throw .notStartable }

        var limit = rlimit()
        let descriptors = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 ? limit.rlim_cur : rlim_t.max
        let connectionLimit = Self.connectionLimit(configured: configuration.maxConnections, descriptorLimit: descriptors)
        let (fd, port) = try ListeningSocket.open(host: configuration.host, port: configuration.port)
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            let e = errno
            close(fd)
            throw .system("pipe2", e)
        }
        let (wakeRead, wakeWrite) = (pipeFDs[0], pipeFDs[1])
        _ = fcntl(wakeRead, F_SETFD, FD_CLOEXEC)
        _ = fcntl(wakeWrite, F_SETFD, FD_CLOEXEC)
        state.withLock {
            $0.listenFD = fd
            $0.wakeRead = wakeRead
            $0.wakeWrite = wakeWrite
            $0.port = port
            $0.connectionLimit = connectionLimit
        }
        do {
            let thread = try startThread(name: "wh-lb-accept", detached: false) { [self] in acceptLoop(listenFD: fd, wakeFD: wakeRead) }
            state.withLock { $0.acceptThread = thread }
        } catch {
            closeListener()
            throw error
        }
        return port
    }

    /// Stops accepting, cuts every open connection and waits until their threads are done.
    ///
    /// Blocks the caller until then (bounded by the handlers still running). Idempotent.
    public func stop() {
        let (thread, wakeWrite) = state.withLock { s -> (pthread_t?, Int32) in
            if s.stopping || !s.started { s.stopping = true; return (nil, -1) }
            s.stopping = true
            let t = s.acceptThread
            s.acceptThread = nil
            return (t, s.wakeWrite)
        }
        guard wakeWrite >= 0 else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        if let thread { pthread_join(thread, nil) }
        // No connection is admitted once `stopping` is set. A connection may end (and close its
        // descriptor) between this snapshot and the shutdown: the socket object then ignores the
        // shutdown, so a descriptor number reused meanwhile by someone else is left alone.
        let open = state.withLock { Array($0.connections.values) }
        for socket in open { socket.shutdown() }
        liveConnections.waitForZero()
        closeListener()
    }

    private func closeListener() {
        let fds = state.withLock { s -> [Int32] in
            defer { s.listenFD = -1; s.wakeRead = -1; s.wakeWrite = -1; s.port = nil }
            return [s.listenFD, s.wakeRead, s.wakeWrite]
        }
        for fd in fds where fd >= 0 { close(fd) }
    }

    // MARK: - Accepting

    /// Accepts until `stop()`. Never spins: when the process is out of descriptors (or
    /// memory, or threads) it answers the waiting client 503 through a reserve descriptor, or
    /// waits a bounded, growing pause before trying again.
    private func acceptLoop(listenFD: Int32, wakeFD: Int32) {
        let limit = connectionLimit
        // The classic trick for EMFILE: hold one spare descriptor; when accept fails for want
        // of descriptors, free it, accept the waiting client, tell it 503, close, take it back.
        var reserve = Self.openReserve()
        defer { if reserve >= 0 { close(reserve) } }
        var backoff: Duration = .zero
        var fds = [pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        while true {
            if backoff > .zero {
                // Wait on the wake pipe only: the listener stays readable while clients queue.
                guard !pause(backoff) else { return }
            }
            let ready = poll(&fds, 2, -1)
            if ready < 0 && (errno == EINTR || errno == ENOMEM) {
                backoff = errno == ENOMEM ? Self.longer(backoff) : .zero
                continue
            }
            if ready < 0 || fds[1].revents != 0 { return }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { accept(listenFD, $0, &length) }
            }
            if fd < 0 {
                switch errno {
                case EMFILE, ENFILE, ENOBUFS, ENOMEM:
                    if reserve >= 0 {
                        close(reserve)
                        let shed = accept(listenFD, nil, nil)
                        if shed >= 0 { Self.refuse(shed) }
                        reserve = Self.openReserve()
                        if shed >= 0 && reserve >= 0 { backoff = .zero; continue }
                    } else {
                        reserve = Self.openReserve()
                    }
                    backoff = Self.longer(backoff)
                default:
                    // EINTR, ECONNABORTED, EAGAIN, EPROTO…: that client is gone; the next one.
                    backoff = .zero
                }
                continue
            }
            backoff = .zero
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            let remote = ListeningSocket.numericAddress(storage)
            guard liveConnections.increment(limit: limit) else {
                Self.refuse(fd)
                evictIdleConnection()   // so that the next client finds a place
                continue
            }
            let socket = ConnectionSocket(fd: fd)
            let admitted = state.withLock { s -> Bool in
                guard !s.stopping else { return false }
                s.connections[ObjectIdentifier(socket)] = socket
                return true
            }
            guard admitted else {
                socket.close()
                liveConnections.decrement()
                return
            }
            var timeout = Self.timeval(configuration.writeTimeout)
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            do {
                try startThread(name: "wh-lb-conn", detached: true) { [self] in
                    HTTPConnection(socket: socket, remoteAddress: remote, server: self).run()
                    connectionEnded(socket)
                }
            } catch {
                // Out of threads: say so, and give the system a moment before the next one.
                _ = sendAll(fd, Self.serviceUnavailable)
                connectionEnded(socket)
                backoff = Self.longer(backoff)
                continue
            }
            if state.withLock({ $0.connections.count }) > limit - limit / 4 { evictIdleConnection() }
        }
    }

    /// Closes the connection that has held its place the longest for nothing: idle (kept
    /// alive, or opened and never used) for `evictIdleAfter`, or still sending one request after
    /// `evictSlowRequestAfter`.
    ///
    /// Called when three quarters of the connection limit are in use, so that neither held-open
    /// connections nor clients trickling their headers (slowloris) can lock anyone out. An
    /// answer in progress is never cut.
    private func evictIdleConnection() {
        let open = state.withLock { Array($0.connections.values) }
        let now = ContinuousClock.now
        let idleCutoff = now - configuration.evictIdleAfter
        let readingCutoff = now - configuration.evictSlowRequestAfter
        var oldest: (socket: ConnectionSocket, since: ContinuousClock.Instant)?
        for socket in open {
            let since: ContinuousClock.Instant
            switch socket.phase {
            case .idle(let t)? where t <= idleCutoff: since = t
            case .reading(let t)? where t <= readingCutoff: since = t
            default: continue
            }
            if oldest.map({ since < $0.since }) ?? true { oldest = (socket, since) }
        }
        if let oldest { _ = oldest.socket.evict(idleSince: idleCutoff, readingSince: readingCutoff) }
    }

    private func connectionEnded(_ socket: ConnectionSocket) {
        state.withLock { _ = $0.connections.removeValue(forKey: ObjectIdentifier(socket)) }
        socket.close()
        liveConnections.decrement()
    }

    /// The next pause after `backoff`: 10 ms, doubling up to 500 ms.
    static func longer(_ backoff: Duration) -> Duration {
        backoff == .zero ? .milliseconds(10) : min(backoff * 2, .milliseconds(500))
    }

    private static func openReserve() -> Int32 { open("/dev/null", O_RDONLY | O_CLOEXEC) }

    static let serviceUnavailable = Array("HTTP/1.1 503 Service Unavailable\r\nContent-Length: 20\r\nConnection: close\r\nRetry-After: 1\r\n\r\nService Unavailable\n".utf8)

    /// Answers 503 on a just-accepted socket and closes it, from the accept thread.
    ///
    /// Never blocks: the answer fits an empty send buffer (MSG_DONTWAIT all the same), and what
    /// the client already sent is read and dropped first, so the close sends a FIN rather than a
    /// reset that could destroy the answer before the client reads it.
    static func refuse(_ fd: Int32) {
        var scratch = [UInt8](repeating: 0, count: 4096)
        for _ in 0..<4 {
            let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n < scratch.count { break }
        }
        _ = serviceUnavailable.withUnsafeBytes {
            send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
        }
        close(fd)
    }

    static func timeval(_ d: Duration) -> Glibc.timeval {
        let (s, atto) = d.components
        return Glibc.timeval(tv_sec: Int(s), tv_usec: Int(atto / 1_000_000_000_000))
    }

    // MARK: - Used by connections

    var isStopping: Bool { state.withLock { $0.stopping } }

    func lookup(_ path: String) -> Route? { state.withLock { $0.routes[path] } }

    /// Open connections (each holds a thread and a descriptor).
    var openConnections: Int { state.withLock { $0.connections.count } }

    func nextRequestNumber() -> UInt64 { requestCounter.add(1, ordering: .relaxed).oldValue }

    func log(_ entry: AccessLogEntry) { accessLog?(entry) }

    /// Waits for `duration` or until `stop()`, whichever comes first; true when stopped.
    @discardableResult
    func pause(_ duration: Duration) -> Bool {
        let fd = state.withLock { $0.wakeRead }
        guard fd >= 0 else { return true }
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + duration
        while ContinuousClock.now < deadline {
            let r = poll(&p, 1, milliseconds(until: deadline))
            if r > 0 { return true }
            if r < 0 && errno != EINTR { return false }
        }
        return false
    }
}
