/// Where the server listens and the limits it enforces.
public struct HTTPServerConfiguration: Sendable {
    /// A numeric IPv4 or IPv6 address to bind.
    public var host: String = "127.0.0.1"
    /// The port to bind; 0 takes a free one (`start()` returns it).
    public var port: UInt16 = 0
    /// Longest request line in bytes (longer: 414).
    public var maxRequestLineBytes: Int = 8 * 1024
    /// Most header fields in one request (more: 431).
    public var maxHeaderCount: Int = 100
    /// Largest header section in bytes, request line excluded (larger: 431).
    public var maxHeaderBytes: Int = 16 * 1024
    /// Ceiling for every route's own body limit (`route(_:methods:maxBodyBytes:_:)`, 0 by
    /// default: a route takes no body unless it says so).
    public var maxBodyBytes: Int = 1024 * 1024
    /// Time allowed from the first byte of a request to its last; a slower client is cut off.
    public var requestTimeout: Duration = .seconds(10)
    /// How long a keep-alive connection may wait for its next request.
    public var idleTimeout: Duration = .seconds(15)
    /// Time allowed for sending one answer: to a client that does not read, or reads too
    /// slowly (checked between partial sends, so at most about twice this in all).
    public var writeTimeout: Duration = .seconds(10)
    /// Connections served at once; more are answered 503 and closed. `start()` lowers it to
    /// stay well below the process's descriptor limit (`HTTPServer.connectionLimit`).
    public var maxConnections: Int = 1024
    /// With three quarters of the connections in use, a connection idle this long (between
    /// requests, or open and never used) is closed to make room for new clients.
    public var evictIdleAfter: Duration = .seconds(1)
    /// With three quarters of the connections in use, a client still sending one request after
    /// this long is cut off to make room (otherwise `requestTimeout` applies).
    public var evictSlowRequestAfter: Duration = .seconds(2)
    /// Misbehaviour for testing clients (none by default).
    public var faults = FaultInjection()

    public init(host: String = "127.0.0.1", port: UInt16 = 0) {
        self.host = host
        self.port = port
    }
}

/// One line of the access log: what was asked and what was answered.
public struct AccessLogEntry: Sendable {
    public var remoteAddress: String
    /// The request line's method and target ("-" when the request could not be parsed).
    public var method: String
    public var target: String
    public var status: Int
    /// Body bytes sent.
    public var bytesSent: Int
    public var duration: Duration
    public var fault: Fault

    /// `127.0.0.1 "GET /leaderboard" 200 512 3ms` (plus ` fault=…` when one was injected).
    public var line: String {
        let ms = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        return "\(remoteAddress) \"\(method) \(target)\" \(status) \(bytesSent) \(ms)ms"
            + (fault == .none ? "" : " fault=\(fault.rawValue)")
    }
}
