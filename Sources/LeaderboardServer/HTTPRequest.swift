/// A request as the server read it, handed to a route's handler.
public struct HTTPRequest: Sendable {
    /// The method token as sent, e.g. `GET`.
    public var method: String
    /// The request target as sent, e.g. `/leaderboard?limit=3`.
    public var target: String
    /// The target up to `?`.
    public var path: String
    /// What follows `?` in the target, or nil.
    public var query: String?
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var version: String
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The peer's numeric address, e.g. `127.0.0.1`.
    public var remoteAddress: String

    public init(method: String, target: String, version: String = "HTTP/1.1",
                headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], remoteAddress: String = "") {
        self.method = method
        self.target = target
        if let q = target.firstIndex(of: "?") {
            path = String(target[..<q])
            query = String(target[target.index(after: q)...])
        } else {
            path = target
            query = nil
        }
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
    }
}
