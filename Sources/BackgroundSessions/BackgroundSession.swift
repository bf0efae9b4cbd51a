import FoundationEssentials

/// A background session: the download tasks of one identifier, as a background `URLSession`.
///
/// Obtain it from `BackgroundSessionManager.session(identifier:delegate:)`; the manager caches
/// one per identifier. Thread-safe.
public final class BackgroundSession: Sendable {
    public let identifier: String
    let manager: BackgroundSessionManager

    init(identifier: String, manager: BackgroundSessionManager) {
        self.identifier = identifier
        self.manager = manager
    }

    /// The delegate that receives this session's events, if one is attached.
    public var delegate: (any BackgroundSessionDelegate)? { manager.delegate(for: identifier) }

    /// Starts downloading `url`, or returns the task already in flight for `url` in this session.
    ///
    /// The task is journalled before it starts, so it survives a crash of the host. In a host
    /// whose background sessions are unavailable the task completes at once with
    /// `BackgroundTaskError.unavailable`.
    ///
    /// - Parameter headers: extra request headers (`Authorization`, `Accept`…). They live in
    ///   memory only — never in the journal — and go with this start of the task; a task
    ///   already in flight for `url` keeps the headers it started with.
    /// - Parameter conditional: false: this start sends no `If-None-Match`/`If-Modified-Since`
    ///   (the transport's remembered validators are not used), so the answer has a body.
    /// - Parameter keepsErrorBody: a final 4xx answer's body is delivered as the download
    ///   (`TransferRequest.keepsErrorBody`); like the headers, it goes with this start only.
    public func downloadTask(with url: URL, taskDescription: String? = nil, headers: [String: String] = [:],
                             conditional: Bool = true, keepsErrorBody: Bool = false) -> BackgroundDownloadTask {
        manager.downloadTask(session: identifier, url: url, taskDescription: taskDescription, headers: headers,
                             conditional: conditional, keepsErrorBody: keepsErrorBody)
    }

    /// `downloadTask(with:taskDescription:)` that never waits, for a provider answering on the
    /// loop: nil (nothing journalled or started) when the task's journal insert could not be
    /// made at once as a plain WAL append; then call `downloadTask` off the loop.
    public func downloadTaskWithoutWaiting(with url: URL, taskDescription: String? = nil) -> BackgroundDownloadTask? {
        manager.downloadTaskWithoutWaiting(session: identifier, url: url, taskDescription: taskDescription)
    }

    /// Tasks not yet completed (running, or journalled and waiting to be resumed), oldest first.
    public var allTasks: [BackgroundDownloadTask] { manager.tasks(session: identifier) }

    /// Cancels every task not yet completed.
    public func cancelAllTasks() {
        for task in allTasks { task.cancel() }
    }
}
