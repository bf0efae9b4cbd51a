/// What a route's handler answers.
///
/// The server adds `Content-Length`, `Connection` and (for 304) drops the body. Set `etag` and
/// the server answers `304 Not Modified` by itself when the request's `If-None-Match` matches.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// The entity tag, quoted as sent on the wire (e.g. `"5f2a"` or `W/"5f2a"`), or nil.
    public var etag: String?
    /// A long-lived body (server-sent events): after the head (no `Content-Length`,
    /// `Connection: close`) the connection's thread calls this with the connection, and closes
    /// it when it returns. `body` is ignored. See `ResponseStream`.
    public var stream: (@Sendable (ResponseStream) -> Void)?

    public init(status: Int = 200, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = [], etag: String? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.etag = etag
    }

    /// A UTF-8 text response.
    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", contentType)]), body: Array(text.utf8))
    }

    /// A JSON response with a strong ETag computed from the bytes.
    public static func json(_ bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: HTTPHeaders([("Content-Type", "application/json")]),
                     body: bytes, etag: entityTag(for: bytes))
    }

    /// A strong entity tag derived from `bytes` (64-bit FNV-1a, quoted).
    public static func entityTag(for bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return "\"" + String(hash, radix: 16) + "\""
    }

    /// The standard reason phrase for a status code ("Unknown" for codes not listed).
    public static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 505: return "HTTP Version Not Supported"
        default: return "Unknown"
        }
    }
}

extension HTTPRequest {
    /// Whether this request's `If-None-Match` matches `etag` (weak comparison, `*` matches any).
    public func ifNoneMatchMatches(_ etag: String) -> Bool {
        func opaque(_ tag: Substring) -> Substring {
            tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
        }
        let mine = opaque(Substring(etag))
        for header in headers.values(for: "If-None-Match") {
            for candidate in header.split(separator: ",") {
                let trimmed = candidate.trimmingSpaces
                if trimmed == "*" || opaque(trimmed) == mine { return true }
            }
        }
        return false
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return s
    }
}
