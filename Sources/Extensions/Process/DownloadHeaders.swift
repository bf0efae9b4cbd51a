import BackgroundSessions
import JSONTree

/// The `headers` of a `download` (`{name: value}`), checked before they reach the transport:
/// names are RFC 7230 tokens, values have no control character (a tab is fine) — so nothing
/// can be smuggled into the request — and count and size are bounded. Headers the host sets
/// itself (framing, connection, conditional requests) are refused (`HTTPHeaderRules`).
///
/// The values may be credentials: they are kept in memory only, never journalled or logged.
enum DownloadHeaders {
    static let maximumCount = 32
    static let maximumNameBytes = 64
    static let maximumValueBytes = 4096
    /// All names and values together.
    static let maximumTotalBytes = 16 * 1024

    /// The headers, or the problem (naming the header, never quoting its value).
    static func validate(_ value: JSONValue) -> Result<[String: String], Problem> {
        guard case .object(let object) = value else { return .failure(Problem("headers must be an object {name: value}")) }
        guard object.count <= maximumCount else { return .failure(Problem("at most \(maximumCount) headers; got \(object.count)")) }
        var headers: [String: String] = [:]
        var seen: Set<String> = []
        var total = 0
        for (name, member) in object.members {
            let shown = "'\(RPCMessage.printable(name, limit: 40))'"
            guard HTTPHeaderRules.isToken(name, maximumBytes: maximumNameBytes) else {
                return .failure(Problem("header \(shown) is not a valid name (RFC 7230 token characters, 1–\(maximumNameBytes) bytes)"))
            }
            guard !HTTPHeaderRules.isReserved(name) else {
                return .failure(Problem("header \(shown) is set by the host and cannot be given"))
            }
            guard seen.insert(name.lowercased()).inserted else { return .failure(Problem("header \(shown) is given twice")) }
            guard case .string(let text) = member else { return .failure(Problem("header \(shown): the value must be a string")) }
            guard text.utf8.count <= maximumValueBytes else {
                return .failure(Problem("header \(shown): the value is longer than \(maximumValueBytes) bytes"))
            }
            guard !HTTPHeaderRules.hasControlCharacter(text) else {
                return .failure(Problem("header \(shown): the value contains a control character (CR, LF, NUL or another)"))
            }
            total += name.utf8.count + text.utf8.count
            guard total <= maximumTotalBytes else { return .failure(Problem("headers are longer than \(maximumTotalBytes) bytes in all")) }
            headers[name] = text
        }
        return .success(headers)
    }

    struct Problem: Error, Equatable {
        let message: String
        init(_ message: String) { self.message = message }
    }
}
