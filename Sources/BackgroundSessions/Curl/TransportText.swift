/// How the transport writes durations and HTTP statuses (sizes: `ByteCountText.exact`) in its failure reasons.
/// Pure; every function total (a server may ask for any wait).
enum TransportText {
    /// Whole milliseconds, rounded up; 0 for negative durations, `Int.max` for ones too long
    /// to count in milliseconds (a server's `Retry-After` may ask for anything).
    static func milliseconds(_ d: Duration) -> Int {
        if d <= .zero { return 0 }
        let (s, atto) = d.components
        let (ms, overflow) = s.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return Int.max }
        // atto is below 10^18, so the rounded-up part is at most 1000.
        let (total, overflowAdding) = ms.addingReportingOverflow((atto + 999_999_999_999_999) / 1_000_000_000_000_000)
        return overflowAdding ? Int.max : Int(clamping: total)
    }

    /// "10 s", "1.5 s", "300 ms".
    static func seconds(_ d: Duration) -> String {
        let ms = milliseconds(d)
        if ms < 1000 { return "\(ms) ms" }
        if ms % 1000 == 0 { return "\(ms / 1000) s" }
        return "\(Double(ms) / 1000) s"
    }

    /// The phrase of a status the server sent without one ("" for statuses not listed).
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
