import BackgroundSessions
import FoundationEssentials
import JSONTree
import WidgetCore

/// What the `prometheus` session's events do: an answer that parses (strict, at most
/// `HTTPJSONStore.maximumBodyBytes`) is bounded (`PrometheusResult`) and kept under its
/// query's key; Prometheus's own error (`"status": "error"`, which comes with a 400 or 422)
/// is recorded as the panel's error, the last good series kept; transport failures are
/// recorded as `http-json`'s are. Then the `prometheus` kind reloads and the completion is
/// called. Used through `FetchSessionDelegate`.
struct PrometheusSessionRecorder: FetchSessionRecorder {
    let store: HTTPJSONStore
    let center: WidgetCenter

    var maximumBodyBytes: Int { HTTPJSONStore.maximumBodyBytes }

    func received(_ body: Data?, session: String, url: URL, at date: Date) {
        let key = PrometheusQuery.key(of: url)
        func reject(_ reason: String) {
            store.update(session: session, url: key) { state in
                state.rejected(reason, at: date)
                state.attemptURL = key.absoluteString
            }
        }
        guard let body else { return reject("the answer is larger than \(ByteCountText.exact(HTTPJSONStore.maximumBodyBytes))") }
        let value: JSONValue
        do throws(JSONSyntaxError) {
            value = try HTTPJSONStore.parser.parse([UInt8](body))
        } catch {
            // Not JSON (a proxy's page, a 404's text): its first words say what answered.
            let text = String(decoding: body.prefix(200), as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            return reject("not a Prometheus answer: " + (text.isEmpty ? "\(error)" : PrometheusText.clean(text, limit: 80)))
        }
        do throws(PrometheusResult.AnswerError) {
            let result = try PrometheusResult(answer: value)
            let stored = result.stored
            store.update(session: session, url: key, body: (Array(stored.jsonText.utf8), stored)) { state in
                state.succeeded(at: date)
                state.attemptURL = key.absoluteString
            }
        } catch {
            reject(error.description)
        }
    }

    func ended(_ error: BackgroundTaskError, session: String, url: URL, at date: Date) {
        let key = PrometheusQuery.key(of: url)
        let haveBody = store.load(session: session, url: key).body != nil
        store.update(session: session, url: key) { $0.record(error, of: key, at: date, haveData: haveBody) }
    }

    func finishEvents(session: String, cause: WidgetCenter.Cause?, completion: @escaping @Sendable () -> Void) {
        center.reloadTimelines(ofKind: PrometheusWidget.kind, cause: cause)
        completion()
    }
}
