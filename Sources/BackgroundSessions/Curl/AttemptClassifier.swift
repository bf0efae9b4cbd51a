import CCurl
import Glibc
import WidgetCore

/// What an attempt ended with, as the network thread read it from curl and the transfer: plain
/// values, so the classification can be tested without a handle or a server.
struct AttemptReport: Sendable {
    var code: CURLcode
    /// The last response's status and phrase (0 and "" when none came).
    var status = 0
    var reasonPhrase = ""
    /// `CURLINFO_OS_ERRNO`.
    var osErrno = 0
    /// Whether a connection was made (`CURLINFO_CONNECT_TIME_T` > 0).
    var connected = false
    /// The body went past `maxBodyBytes` (the write callback refused it).
    var bodyTooLarge = false
    /// Why the body could not be written, if it could not.
    var fileError: String?
    /// curl's error buffer.
    var errorText = ""
    var contentLength: Int?
    var bytesWritten = 0
    /// The response's `Retry-After`, as sent.
    var retryAfterValue: String?
    /// Where the attempt ended (a redirect's target).
    var effectiveURL: String?
    var requestURL: String
    /// `scheme://host:port` of the request.
    var hostKey: String
    var attemptTimeout: Duration
    /// A POST: never sent twice.
    var isPost = false
}

/// Turns an attempt's end into what the transport does next: keep the body, report "not
/// modified", retry (with the server's wait, if it gave one) or fail — each failure with the
/// reason the widget shows. Pure: the caller commits or discards the body.
enum AttemptClassifier {
    enum Verdict: Sendable, Equatable {
        /// 2xx: the body is the result (the caller commits it).
        case downloaded
        /// 304: the caller reports `.notModified` with the validators.
        case notModified
        /// Worth another attempt; `retryAfter` is the server's wait.
        case retry(TransferFailure.Kind, String, retryAfter: Duration?)
        /// Final.
        case fail(TransferFailure.Kind, String)
    }

    static func classify(_ r: AttemptReport, configuration: CurlTransportConfiguration, wallNow: Double) -> Verdict {
        let verdict = classifyIgnoringMethod(r, configuration: configuration, wallNow: wallNow)
        if case .retry(let kind, let reason, _) = verdict, r.isPost, r.connected {
            // The server may have acted on the POST already: not done twice.
            return .fail(kind, reason)
        }
        return verdict
    }

    private static func classifyIgnoringMethod(_ r: AttemptReport, configuration: CurlTransportConfiguration,
                                               wallNow: Double) -> Verdict {
        if r.bodyTooLarge || r.code == CURLE_FILESIZE_EXCEEDED {
            return .fail(.bodyTooLarge, "body larger than \(ByteCountText.exact(configuration.maxBodyBytes))")
        }
        if let fileError = r.fileError { return .fail(.fileSystem, fileError) }

        switch r.code {
        case CURLE_OK:
            let reason = r.reasonPhrase.isEmpty ? TransportText.reasonPhrase(r.status) : r.reasonPhrase
            switch r.status {
            case 200..<300:
                return .downloaded
            case 304:
                return .notModified
            case 429, 500..<600:
                let after = r.retryAfterValue.flatMap { RetryAfter.parse($0, now: wallNow) }
                return .retry(.httpStatus(r.status), "server answered \(r.status) \(reason)", retryAfter: after)
            default:
                return .fail(.httpStatus(r.status), "server answered \(r.status) \(reason)")
            }
        case CURLE_COULDNT_CONNECT:
            return .retry(.connection, r.osErrno == Int(ECONNREFUSED) ? "connection refused"
                          : "could not connect: \(r.errorText)", retryAfter: nil)
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return .retry(.connection, "could not resolve host: \(r.errorText)", retryAfter: nil)
        case CURLE_OPERATION_TIMEDOUT:
            if !r.connected {
                return .retry(.timedOut, "timed out after \(TransportText.seconds(min(configuration.connectTimeout, r.attemptTimeout))) connecting",
                              retryAfter: nil)
            }
            if r.errorText.contains("too slow") {
                return .retry(.timedOut, "stalled: under \(configuration.lowSpeedBytesPerSecond) bytes/s for \(TransportText.seconds(configuration.lowSpeedTime))",
                              retryAfter: nil)
            }
            return .retry(.timedOut, "timed out after \(TransportText.seconds(r.attemptTimeout))", retryAfter: nil)
        case CURLE_PARTIAL_FILE:
            let announced = r.contentLength.map { " of \($0)" } ?? ""
            return .retry(.truncated, "connection closed after \(r.bytesWritten)\(announced) bytes", retryAfter: nil)
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return .retry(.connection, r.osErrno == Int(ECONNRESET) ? "connection reset by the server"
                          : "connection failed: \(r.errorText)", retryAfter: nil)
        case CURLE_GOT_NOTHING:
            return .retry(.connection, "server closed the connection without answering", retryAfter: nil)
        case CURLE_SSL_CONNECT_ERROR:
            return .retry(.connection, "TLS handshake failed: \(r.errorText)", retryAfter: nil)
        case CURLE_TOO_MANY_REDIRECTS:
            return .fail(.tooManyRedirects, "stopped after \(configuration.maxRedirects) redirects")
        case CURLE_UNSUPPORTED_PROTOCOL:
            if (300..<400).contains(r.status), let effective = r.effectiveURL, effective != r.requestURL {
                // The server chose this URL: shown without credentials, cleaned and cut (in that
                // order, so a cut cannot hide the @ that ends a password).
                let target = Transfer.printable(Substring(URLRedaction.redacted(effective)), limit: 200)
                let from = r.hostKey.hasPrefix("https:") ? "https" : "http"
                let to = target.prefix { $0 != ":" }.lowercased()
                return .fail(.badURL, from == "https" && to == "http"
                             ? "refused a redirect from https to http: \(target)"
                             : "refused a redirect to another protocol: \(target)")
            }
            return .fail(.badURL, "unsupported protocol (only http and https): \(r.requestURL)")
        case CURLE_URL_MALFORMAT:
            return .fail(.badURL, "malformed URL: \(r.requestURL)")
        default:
            return .fail(.other, r.errorText.isEmpty ? String(cString: curl_easy_strerror(r.code)) : r.errorText)
        }
    }

    /// After a failure worth retrying: wait `delay` and try again, or give up with the reason
    /// completed (tries made, a wait asked for that is too long, no time left).
    enum RetryDecision: Sendable, Equatable {
        case wait(Duration)
        case giveUp(String)
    }

    /// `jitter` is drawn only when the server gave no wait (so a seeded run stays reproducible).
    static func decide(reason: String, retryAfter: Duration?, attempts: Int, policy: RetryPolicy, jitter: () -> Double,
                       now: ContinuousClock.Instant, deadline: ContinuousClock.Instant, transferDeadline: Duration) -> RetryDecision {
        let delay = retryAfter ?? policy.delay(afterAttempt: attempts, jitter: jitter())
        let tooLongAsked = retryAfter.map { $0 > policy.maxRetryAfter } ?? false
        let pastDeadline = now + delay >= deadline
        guard attempts >= policy.maxAttempts || tooLongAsked || pastDeadline else { return .wait(delay) }
        var reason = reason
        if attempts > 1 { reason += " after \(attempts) tries" }
        if tooLongAsked, let retryAfter { reason += " (asked to retry in \(TransportText.seconds(retryAfter)))" }
        else if pastDeadline && attempts < policy.maxAttempts {
            reason += " (no time left to retry within \(TransportText.seconds(transferDeadline)))"
        }
        return .giveUp(reason)
    }
}
