/// Identifies one transfer started on an `HTTPTransport`.
public struct TransferID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "transfer-\(rawValue)" }
}

/// Performs downloads to files; the seam between background sessions and the network.
///
/// Implementations deliver every event through the callback given to `start`, on a thread of
/// their own: the callback must not touch UI state and should return quickly (hop to your own
/// executor). Each transfer ends with exactly one `.finished` event.
public protocol HTTPTransport: Sendable {
    /// Starts a transfer (it may wait in a queue first) and returns its id at once.
    @discardableResult
    func start(_ request: TransferRequest, events: @escaping @Sendable (TransferEvent) -> Void) -> TransferID

    /// Cancels a transfer: it ends with `.finished(.cancelled)` unless it already finished.
    ///
    /// No file is left behind. Cancelling an unknown or finished id does nothing.
    func cancel(_ id: TransferID)

    /// Cuts a retry wait short: a transfer waiting out its backoff after a failed attempt
    /// starts its next attempt at once (`.retrying`).
    ///
    /// A wait the server asked for with `Retry-After` is honoured, not cut short
    /// (`.honouringRetryAfter(remaining:)`). Anything else — an attempt in flight, a transfer
    /// queued for a connection, finished or unknown — is `.notWaiting`. Thread-safe; returns
    /// at once. For a user's explicit reload (DESIGN.md §2.6), not for automatic retries.
    @discardableResult
    func retryNow(_ id: TransferID) -> RetryNowResult
}

/// What a transfer reports while it runs and when it ends.
public enum TransferEvent: Sendable, Equatable {
    /// Attempt `attempt` failed for `reason`; the next starts after `delay`.
    case retrying(attempt: Int, delay: Duration, reason: String)
    /// The transfer is over; nothing more is reported for it.
    case finished(TransferResult)
}

/// How a transfer ended.
public enum TransferResult: Sendable, Equatable {
    /// The body is in `file.path` (complete; not fsynced, see `Transfer.commitTempFile`).
    case downloaded(DownloadedFile)
    /// The server answered 304 to our conditional request: the copy we have is current.
    case notModified(Validators)
    /// It failed for good; `TransferFailure.reason` says why in words.
    case failed(TransferFailure)
    /// `cancel` was called before it finished.
    case cancelled
}

/// A body written to disk.
public struct DownloadedFile: Sendable, Equatable {
    /// Absolute or relative path as given by the request's directory and file name.
    public var path: String
    /// The final HTTP status (2xx).
    public var status: Int
    public var byteCount: Int
    /// The response's ETag / Last-Modified, remembered for the next request to this URL.
    public var validators: Validators
    /// How many attempts it took (1 when the first succeeded).
    public var attempts: Int
}

/// Cache validators of a response, sent back as `If-None-Match` / `If-Modified-Since`.
public struct Validators: Sendable, Equatable, Hashable {
    public var etag: String?
    public var lastModified: String?
    public init(etag: String? = nil, lastModified: String? = nil) {
        self.etag = etag
        self.lastModified = lastModified
    }
    public var isEmpty: Bool { etag == nil && lastModified == nil }
}

/// Why a transfer failed, in words and as a kind a caller can act on.
public struct TransferFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Could not connect, connection reset, or closed without an answer.
        case connection
        case timedOut
        /// The server answered with this status (non-2xx, not 304).
        case httpStatus(Int)
        /// The body was cut short (fewer bytes than announced).
        case truncated
        case bodyTooLarge
        case tooManyRedirects
        /// Not an http or https URL, or not a URL at all.
        case badURL
        /// The destination could not be written.
        case fileSystem
        case other
    }

    public var kind: Kind
    /// A sentence for people, e.g. "server answered 500 Internal Server Error after 3 tries".
    public var reason: String
    public var attempts: Int
    /// The wait the server asked for with its last `Retry-After`, if any.
    public var retryAfter: Duration?

    public init(kind: Kind, reason: String, attempts: Int, retryAfter: Duration? = nil) {
        self.kind = kind
        self.reason = reason
        self.attempts = attempts
        self.retryAfter = retryAfter
    }

    public var description: String { reason }
}

/// One download: where from and which file to write.
public struct TransferRequest: Sendable, Equatable {
    /// An `http` or `https` URL.
    public var url: String
    /// The directory of the result file; the temporary file is made here too (same file system).
    public var directory: String
    /// The result file's name inside `directory`; replaced atomically on success.
    public var fileName: String
    /// Extra request headers, e.g. `["Accept": "application/json"]`.
    public var headers: [String: String]
    /// Validators to send instead of the ones remembered for this URL (nil: use remembered ones).
    public var validators: Validators?
    /// Non-nil: a `POST` of these bytes (an action, such as a hero's heal). A POST sends no
    /// validators, follows no redirect, and is retried only when the server was never reached
    /// (it may not be safe to do twice).
    public var postBody: [UInt8]?
    /// A final 4xx answer with a body is delivered as a download (`DownloadedFile.status` says
    /// which), not as a failure: an API that explains its refusal in the body (Prometheus's
    /// `{"status": "error", "error": …}` with a 400) is heard. Retried statuses (429, 5xx)
    /// still fail after their retries.
    public var keepsErrorBody: Bool

    public init(url: String, directory: String, fileName: String,
                headers: [String: String] = [:], validators: Validators? = nil, postBody: [UInt8]? = nil,
                keepsErrorBody: Bool = false) {
        self.url = url
        self.directory = directory
        self.fileName = fileName
        self.headers = headers
        self.validators = validators
        self.postBody = postBody
        self.keepsErrorBody = keepsErrorBody
    }

    /// What a remembered ETag / Last-Modified is kept under: the URL *and* the directory (a
    /// session's). Another session fetching the same URL has its own copy to validate — or
    /// none — so it must not send validators it never received (a 304 would leave it
    /// without a body).
    var validatorKey: String { directory + "\n" + url }

    /// `directory/fileName`.
    public var destinationPath: String { directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName }
}
