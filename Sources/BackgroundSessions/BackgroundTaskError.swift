/// Why a download task did not end with a fresh file, as given to
/// `urlSession(_:task:didCompleteWithError:)`.
public enum BackgroundTaskError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server answered 304 to the conditional request: the copy the widget has is current.
    case notModified(Validators)
    /// The transfer failed for good; `reason` says why in words.
    case failed(reason: String, attempts: Int, retryAfter: Duration?)
    /// The task was cancelled.
    case cancelled
    /// Background sessions are off in this host (another host holds the state directory).
    case unavailable(String)
    /// The downloaded file kept for this event disappeared before it could be delivered.
    case fileMissing(String)

    public var description: String {
        switch self {
        case .notModified: "not modified"
        case .failed(let reason, _, _): reason
        case .cancelled: "cancelled"
        case .unavailable(let message): message
        case .fileMissing(let path): "the downloaded file \(path) is missing"
        }
    }
}
