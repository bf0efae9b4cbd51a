/// What a header given to `downloadTask(headers:)` may be — shared by every caller that takes
/// headers from outside (an `http-json` config, an extension's `download`), checked before
/// they reach the transport.
public enum HTTPHeaderRules {
    /// Set by the host or its transport (framing, connection, conditional requests, ranges);
    /// lower case. A caller's own would clash with them.
    public static let reserved: Set<String> = [
        "host", "content-length", "transfer-encoding", "connection", "keep-alive", "te", "trailer", "upgrade",
        "expect", "proxy-connection", "if-none-match", "if-modified-since", "range",
    ]

    /// Whether `name` is one of `reserved` (any case).
    public static func isReserved(_ name: String) -> Bool { reserved.contains(name.lowercased()) }

    /// Whether `name` is an RFC 7230 token (`!#$%&'*+-.^_`|~`, digits and letters) of
    /// 1…`maximumBytes` bytes.
    public static func isToken(_ name: String, maximumBytes: Int = 256) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumBytes && name.utf8.allSatisfy(isTokenByte)
    }

    /// RFC 7230 `tchar`.
    public static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
             UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
             UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Whether `value` holds a control character (a tab is fine): a line break would end the
    /// header and start another.
    public static func hasControlCharacter(_ value: String) -> Bool {
        value.utf8.contains { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }
    }
}
