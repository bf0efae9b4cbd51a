import FoundationEssentials

/// Receives a background session's events, as `URLSessionDownloadDelegate` does.
///
/// Called on the manager's `deliveryQueue` (one serial queue per manager), never
/// concurrently; hop to your own executor for UI state. For each finished task, in the order
/// the results were recorded: `didFinishDownloadingTo` (downloads only), then
/// `didCompleteWithError`; after the batch, `urlSessionDidFinishEvents`.
public protocol BackgroundSessionDelegate: AnyObject, Sendable {
    /// The body is at `location`, a file that is removed when this call returns: read or move it
    /// now (moving it away is fine; the journal keeps its own copy until acknowledged).
    func urlSession(_ session: BackgroundSession, downloadTask: BackgroundDownloadTask, didFinishDownloadingTo location: URL)

    /// The task is over: `nil` after a download, else why not (including `.notModified`).
    func urlSession(_ session: BackgroundSession, task: BackgroundDownloadTask, didCompleteWithError error: BackgroundTaskError?)

    /// Every event of this batch has been delivered; call the completion the events handler got.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: BackgroundSession)
}
