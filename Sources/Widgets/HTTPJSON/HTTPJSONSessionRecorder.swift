import BackgroundSessions
import FoundationEssentials
import JSONTree
import WidgetCore

/// What an `http-json` session's events do: a body that parses (strict, at most
/// `HTTPJSONStore.maximumBodyBytes`) is kept, or why not is recorded; failures and 304s are
/// recorded; then the `http-json` kind reloads through `WidgetCenter` and the completion is
/// called. Used through `FetchSessionDelegate`.
struct HTTPJSONSessionRecorder: FetchSessionRecorder {
    let store: HTTPJSONStore
    let center: WidgetCenter

    var maximumBodyBytes: Int { HTTPJSONStore.maximumBodyBytes }

    func received(_ body: Data?, session: String, url: URL, at date: Date) {
        guard let body else {
            store.update(session: session, url: url) { state in
                state.rejected("the answer is larger than \(ByteCountText.exact(HTTPJSONStore.maximumBodyBytes))", at: date)
                state.attemptURL = url.absoluteString
            }
            return
        }
        let bytes = [UInt8](body)
        do throws(JSONSyntaxError) {
            let value = try HTTPJSONStore.parser.parse(bytes)
            store.update(session: session, url: url, body: (bytes, value)) { state in
                state.succeeded(at: date)
                state.attemptURL = url.absoluteString
            }
        } catch {
            store.update(session: session, url: url) { state in
                state.rejected("not JSON: \(error)", at: date)
                state.attemptURL = url.absoluteString
            }
        }
    }

    func ended(_ error: BackgroundTaskError, session: String, url: URL, at date: Date) {
        let haveBody = store.load(session: session, url: url).body != nil
        store.update(session: session, url: url) { $0.record(error, of: url, at: date, haveData: haveBody) }
    }

    func finishEvents(session: String, cause: WidgetCenter.Cause?, completion: @escaping @Sendable () -> Void) {
        center.reloadTimelines(ofKind: HTTPJSONWidget.kind, cause: cause)
        completion()
    }
}
