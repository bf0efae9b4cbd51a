import FoundationEssentials

/// The requests of one `prometheus` panel: `/api/v1/query` (an instant query, evaluated at
/// the server's now) or `/api/v1/query_range` over the last `rangeSeconds`, each with
/// Prometheus's own evaluation `timeout` (the transport bounds the whole request as well).
///
/// `key` names the panel's query without its moment: the store keeps the last answer under
/// it and the provider finds its running task by it, though a range query's URL changes with
/// every fetch (`&start=…&end=…` come last, so `key(of:)` strips them).
struct PrometheusQuery: Sendable, Equatable {
    /// Seconds Prometheus may spend evaluating a query (`timeout=`).
    static let evaluationTimeoutSeconds = 20

    var key: URL
    /// Range and step in seconds for a range query; nil for an instant query.
    var rangeSeconds: Int?
    var stepSeconds: Int

    /// - Parameter base: Prometheus's base URL (a trailing `/` is dropped).
    init?(base: String, expression: String, rangeSeconds: Int?, stepSeconds: Int) {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        let step = max(1, stepSeconds)
        let path = rangeSeconds == nil ? "/api/v1/query" : "/api/v1/query_range"
        var text = base + path + "?query=" + Self.encoded(expression)
        if rangeSeconds != nil { text += "&step=\(step)" }
        text += "&timeout=\(Self.evaluationTimeoutSeconds)s"
        guard let key = URL(string: text) else { return nil }
        self.key = key
        self.rangeSeconds = rangeSeconds
        self.stepSeconds = step
    }

    /// The URL to fetch at `date`: the key itself for an instant query; for a range query the
    /// key with `start` and `end` (whole seconds, the end at `date`: the last point is now's).
    func url(at date: Date) -> URL {
        guard let rangeSeconds else { return key }
        let end = Int(date.timeIntervalSince1970.rounded(.down))
        return URL(string: key.absoluteString + "&start=\(end - rangeSeconds)&end=\(end)") ?? key
    }

    /// The key of a URL made by `url(at:)`.
    static func key(of url: URL) -> URL {
        let text = url.absoluteString
        guard let start = text.firstRange(of: "&start=") else { return url }
        return URL(string: String(text[..<start.lowerBound])) ?? url
    }

    /// Whether `url` is one of this query's requests.
    func matches(_ url: URL) -> Bool { Self.key(of: url).absoluteString == key.absoluteString }

    /// `text` percent-encoded for a query value: everything but RFC 3986's unreserved bytes.
    static func encoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                result += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return result
    }
}
