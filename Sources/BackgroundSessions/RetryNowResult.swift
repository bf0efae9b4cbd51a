/// What asking a transfer to retry now did (`HTTPTransport.retryNow(_:)`,
/// `BackgroundDownloadTask.retryNow()`).
public enum RetryNowResult: Sendable, Equatable {
    /// The transfer was waiting out a backoff; its next attempt starts at once.
    case retrying
    /// Nothing to cut short: the transfer is connecting or downloading, queued for a connection,
    /// finished, unknown, or not started (a suspended task).
    case notWaiting
    /// The transfer waits because the server said so (`Retry-After`), which is honoured: the next
    /// attempt starts after `remaining` (measured when asked).
    case honouringRetryAfter(remaining: Duration)
}
