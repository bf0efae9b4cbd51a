import FoundationEssentials
import Synchronization

/// One download in a background session, as `URLSessionDownloadTask`.
///
/// Thread-safe. `taskIdentifier` is stable across restarts of the host: a task resumed after
/// a crash, and the events delivered for it, carry the identifier it was given first.
public final class BackgroundDownloadTask: Sendable, CustomStringConvertible {
    public enum State: String, Sendable {
        /// In flight (or waiting to retry).
        case running
        /// Journalled before the host stopped; waiting for `resumeTasks(urlFor:)`.
        case suspended
        case completed
    }

    public let taskIdentifier: Int
    public let sessionIdentifier: String
    public let taskDescription: String?
    /// The URL fetched (for a resumed task: the one the widget is configured with now).
    public let url: URL
    private let mutable: Mutex<(state: State, attempts: Int, lastError: String?)>
    private let cancelAction: @Sendable (Int) -> Void
    private let retryNowAction: @Sendable (Int) -> RetryNowResult

    init(taskIdentifier: Int, sessionIdentifier: String, taskDescription: String?, url: URL, state: State,
         attempts: Int = 0, lastError: String? = nil, cancel: @escaping @Sendable (Int) -> Void,
         retryNow: @escaping @Sendable (Int) -> RetryNowResult) {
        self.taskIdentifier = taskIdentifier
        self.sessionIdentifier = sessionIdentifier
        self.taskDescription = taskDescription
        self.url = url
        mutable = Mutex((state, attempts, lastError))
        cancelAction = cancel
        retryNowAction = retryNow
    }

    public var state: State { mutable.withLock { $0.state } }

    /// Attempts made so far (retries included).
    public var attempts: Int { mutable.withLock { $0.attempts } }

    /// Why the last failed attempt failed, while the task waits to retry (nil before any failure).
    public var lastError: String? { mutable.withLock { $0.lastError } }

    /// Cancels the task: its delegate gets `didCompleteWithError(.cancelled)`. Does nothing once
    /// it has completed.
    public func cancel() { cancelAction(taskIdentifier) }

    /// Cuts the task's retry wait short, for a user's explicit reload (DESIGN.md §2.6).
    ///
    /// `.retrying`: it was waiting out a backoff and its next attempt starts now.
    /// `.honouringRetryAfter(remaining:)`: the server asked for the wait, which is kept.
    /// `.notWaiting`: an attempt is under way, or the task is suspended or completed.
    /// See `HTTPTransport.retryNow(_:)`.
    @discardableResult
    public func retryNow() -> RetryNowResult { retryNowAction(taskIdentifier) }

    func update(state: State? = nil, attempts: Int? = nil, lastError: String? = nil) {
        mutable.withLock {
            if let state { $0.state = state }
            if let attempts { $0.attempts = attempts }
            if let lastError { $0.lastError = lastError }
        }
    }

    public var description: String { "task \(taskIdentifier) (\(sessionIdentifier), \(state.rawValue)) \(url.absoluteString)" }
}
