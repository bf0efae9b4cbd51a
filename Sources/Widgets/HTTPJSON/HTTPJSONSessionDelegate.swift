import BackgroundSessions
import FoundationEssentials
import JSONTree
import WidgetCore

/// Receives an `http-json` session's events: keeps a body that parses (strict, at most
/// `HTTPJSONStore.maximumBodyBytes`) or records why not, records failures and 304s, then
/// reloads the `http-json` kind through `WidgetCenter` and calls the completion.
final class HTTPJSONSessionDelegate: BackgroundSessionDelegate {
    private let store: HTTPJSONStore
    private let center: WidgetCenter
    private let now: @Sendable () -> Date
    private let completion: @Sendable () -> Void

    init(store: HTTPJSONStore, center: WidgetCenter, now: @escaping @Sendable () -> Date, completion: @escaping @Sendable () -> Void) {
        self.store = store
        self.center = center
        self.now = now
        self.completion = completion
    }

    func urlSession(_ session: BackgroundSession, downloadTask: BackgroundDownloadTask, didFinishDownloadingTo location: URL) {
        let date = now()
        let url = downloadTask.url
        guard let data = FileManager.default.contents(atPath: location.path), data.count <= HTTPJSONStore.maximumBodyBytes else {
            store.update(session: session.identifier, url: url) { state in
                state.rejected("the answer is larger than \(HTTPJSONStore.maximumBodyBytes / 1024) KiB", at: date)
                state.attemptURL = url.absoluteString
            }
            return
        }
        let bytes = [UInt8](data)
        do throws(JSONSyntaxError) {
            let value = try HTTPJSONStore.parser.parse(bytes)
            store.update(session: session.identifier, url: url, body: (bytes, value)) { state in
                state.succeeded(at: date)
                state.attemptURL = url.absoluteString
            }
        } catch {
            store.update(session: session.identifier, url: url) { state in
                state.rejected("not JSON: \(error)", at: date)
                state.attemptURL = url.absoluteString
            }
        }
    }

    func urlSession(_ session: BackgroundSession, task: BackgroundDownloadTask, didCompleteWithError error: BackgroundTaskError?) {
        guard let error else { return }
        let date = now()
        let url = task.url
        let haveBody = store.load(session: session.identifier, url: url).body != nil
        store.update(session: session.identifier, url: url) { state in
            switch error {
            case .notModified: state.confirmed(at: date, haveData: haveBody)
            case .failed(let reason, _, let retryAfter): state.failed(reason, at: date, retryAfter: retryAfter)
            case .cancelled: return
            case .unavailable(let message), .fileMissing(let message): state.failed(message, at: date)
            }
            state.attemptURL = url.absoluteString
        }
    }

    func urlSessionDidFinishEvents(forBackgroundURLSession session: BackgroundSession) {
        center.reloadTimelines(ofKind: HTTPJSONWidget.kind)
        completion()
    }
}
