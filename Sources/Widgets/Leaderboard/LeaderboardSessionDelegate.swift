import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// Receives a leaderboard session's events: saves the new board (or the error) in the
/// container, then reloads the leaderboard and hero widgets through `WidgetCenter` and calls
/// the completion the events handler was given — the WidgetKit order. A save that fails holds
/// the completion back (see `LeaderboardStore`).
final class LeaderboardSessionDelegate: BackgroundSessionDelegate {
    private let store: LeaderboardStore
    private let center: WidgetCenter
    private let now: @Sendable () -> Date
    private let completion: @Sendable () -> Void

    init(store: LeaderboardStore, center: WidgetCenter, now: @escaping @Sendable () -> Date, completion: @escaping @Sendable () -> Void) {
        self.store = store
        self.center = center
        self.now = now
        self.completion = completion
    }

    func urlSession(_ session: BackgroundSession, downloadTask: BackgroundDownloadTask, didFinishDownloadingTo location: URL) {
        let date = now()
        let result: Result<LeaderboardDecoder.Result, LeaderboardDecoder.Failure>
        if let data = FileManager.default.contents(atPath: location.path), data.count <= 1 << 20 {
            do throws(LeaderboardDecoder.Failure) {
                result = .success(try LeaderboardDecoder.decode(data))
            } catch {
                result = .failure(error)
            }
        } else {
            result = .failure(.notJSON)
        }
        store.update(session: session.identifier) { state in
            switch result {
            case .success(let decoded): state.received(decoded, at: date)
            case .failure(let failure): state.rejected(failure.description, at: date)
            }
            state.attemptURL = downloadTask.url.absoluteString
        }
    }

    func urlSession(_ session: BackgroundSession, task: BackgroundDownloadTask, didCompleteWithError error: BackgroundTaskError?) {
        guard let error else { return }
        let date = now()
        store.update(session: session.identifier) { state in
            switch error {
            case .notModified: state.confirmed(at: date)
            case .failed(let reason, _, let retryAfter): state.failed(reason, at: date, retryAfter: retryAfter)
            case .cancelled: return
            case .unavailable(let message), .fileMissing(let message): state.failed(message, at: date)
            }
            state.attemptURL = task.url.absoluteString
        }
    }

    /// Reloads the widgets, then calls the completion — unless a state of this batch could not
    /// be saved: then the completion waits (in the store) until it is, so the journal keeps the
    /// events and a crash in between re-delivers them rather than losing the board.
    func urlSessionDidFinishEvents(forBackgroundURLSession session: BackgroundSession) {
        center.reloadTimelines(ofKind: LeaderboardWidget.kind)
        center.reloadTimelines(ofKind: HeroWidget.kind)
        if !store.holdUntilSaved(session: session.identifier, completion: completion) { completion() }
    }
}
