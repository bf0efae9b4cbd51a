/// Limits, retries and proxy handling of a `CurlTransport`.
public struct CurlTransportConfiguration: Sendable {
    /// Time allowed to establish a connection (TCP + TLS).
    public var connectTimeout: Duration = .seconds(10)
    /// Time allowed for one attempt, from sending the request to the last body byte.
    public var requestTimeout: Duration = .seconds(30)
    /// An attempt slower than `lowSpeedBytesPerSecond` for `lowSpeedTime` is abandoned as stalled.
    public var lowSpeedBytesPerSecond: Int = 1
    public var lowSpeedTime: Duration = .seconds(15)
    /// Time allowed for the whole transfer: queueing, every attempt and the waits between them.
    public var transferDeadline: Duration = .seconds(120)
    /// Largest body accepted, in bytes; a larger one fails (early when Content-Length says so).
    public var maxBodyBytes: Int = 1 << 20
    /// Redirects followed before giving up.
    public var maxRedirects: Int = 5
    /// Attempts running at once against one scheme+host+port; more wait in a FIFO queue.
    public var maxConcurrentPerHost: Int = 4
    public var retry = RetryPolicy()
    /// Proxies come from the environment as curl reads them (`http_proxy`, `HTTPS_PROXY`,
    /// `ALL_PROXY`, `NO_PROXY`; curl ignores upper-case `HTTP_PROXY`) unless `proxy` is set.
    /// Loopback (`localhost`, `127.0.0.0/8`, `[::1]`) never goes through a proxy: the host's own
    /// bundled server must stay reachable whatever `http_proxy` says.
    ///
    /// A non-nil `noProxy` replaces `NO_PROXY` (comma-separated hosts, `*` for all); the
    /// loopback hosts are added to it either way.
    public var noProxy: String?
    /// The proxy for every transfer (`http://host:port`), instead of the environment's; `""`
    /// for none. Loopback still bypasses it.
    public var proxy: String?
    /// Whether a transfer that starts on https may follow a redirect to plain http. Off: such a
    /// redirect fails (`.badURL`) rather than send the request, and any credentials, in clear.
    public var allowsHTTPSDowngrade = false
    public var userAgent: String = "WidgetHost/0.1"

    public init() {}
}
