import BackgroundSessions
import FoundationEssentials
import Synchronization
import WidgetCore

/// What a widget that fetches its data through a background session does with the session's
/// events; `FetchSessionDelegate` turns the events into these calls.
///
/// Called on the session manager's delivery thread, one event at a time.
protocol FetchSessionRecorder: Sendable {
    /// The largest body read from a download; a larger one comes to `received` as nil.
    var maximumBodyBytes: Int { get }
    /// A download of `url` finished at `date`: `body` is nil when it could not be read or is
    /// larger than `maximumBodyBytes`.
    func received(_ body: Data?, session: String, url: URL, at date: Date)
    /// A task for `url` ended without a body (a 304, a failure, a cancel) at `date`.
    func ended(_ error: BackgroundTaskError, session: String, url: URL, at date: Date)
    /// Every event of the batch has been delivered: reload the widgets through `WidgetCenter`
    /// for `cause` (nil: the system's; `.outage`: the batch brought only failures; `.answer`:
    /// a user awaited it; `.push`: a push started it), then call `completion` — the WidgetKit
    /// order — or keep it until the data is saved.
    func finishEvents(session: String, cause: WidgetCenter.Cause?, completion: @escaping @Sendable () -> Void)
}

/// The session delegate of the widgets that fetch by download (`leaderboard`, `http-json`):
/// reads the body within the recorder's limit, takes the time, and hands each event to the
/// widget's `FetchSessionRecorder`.
final class FetchSessionDelegate: BackgroundSessionDelegate {
    private let recorder: any FetchSessionRecorder
    private let now: @Sendable () -> Date
    private let completion: @Sendable () -> Void
    /// Per session, whether the batch being delivered brought anything but failures (a body,
    /// a 304): a batch of failures only is an outage, whose reload spends no budget.
    private let batches = Mutex<[String: Bool]>([:])
    /// Who awaits each session's download (a user, a push).
    private let intents: FetchIntents

    init(_ recorder: any FetchSessionRecorder, intents: FetchIntents, now: @escaping @Sendable () -> Date,
         completion: @escaping @Sendable () -> Void) {
        self.recorder = recorder
        self.intents = intents
        self.now = now
        self.completion = completion
    }

    func urlSession(_ session: BackgroundSession, downloadTask: BackgroundDownloadTask, didFinishDownloadingTo location: URL) {
        let date = now()
        let body = FileManager.default.contents(atPath: location.path).flatMap { $0.count <= recorder.maximumBodyBytes ? $0 : nil }
        recorder.received(body, session: session.identifier, url: downloadTask.url, at: date)
        batches.withLock { $0[session.identifier] = true }
    }

    func urlSession(_ session: BackgroundSession, task: BackgroundDownloadTask, didCompleteWithError error: BackgroundTaskError?) {
        guard let error else { return }
        recorder.ended(error, session: session.identifier, url: task.url, at: now())
        let answered: Bool?
        switch error {
        case .notModified: answered = true
        case .failed, .unavailable, .fileMissing: answered = false
        case .cancelled: answered = nil
        }
        if let answered { batches.withLock { $0[session.identifier] = ($0[session.identifier] ?? false) || answered } }
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: BackgroundSession) {
        let brought = batches.withLock { $0.removeValue(forKey: session.identifier) }
        let awaited = intents.take(session.identifier)
        recorder.finishEvents(session: session.identifier, cause: brought == false ? .outage : awaited, completion: completion)
    }
}

extension FetchRecord {
    /// Records how a fetch of `url` that brought no body ended: a 304 confirms the data kept
    /// (`haveData`), a failure counts (with the server's Retry-After), a cancelled task records
    /// nothing.
    mutating func record(_ ending: BackgroundTaskError, of url: URL, at date: Date, haveData: Bool) {
        switch ending {
        case .notModified: confirmed(at: date, haveData: haveData)
        case .failed(let reason, _, let retryAfter): failed(reason, at: date, retryAfter: retryAfter)
        case .cancelled: return
        case .unavailable(let message), .fileMissing(let message): failed(message, at: date)
        }
        attemptURL = url.absoluteString
    }
}
