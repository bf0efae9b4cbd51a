import FoundationEssentials
import Testing
import WidgetCore
@testable import Widgets

@Suite("http-json session events")
struct HTTPJSONRecorderTests {
    /// Said as the transport says its own limit ("body larger than 1 MiB"): one byte formatter.
    @Test("a body over the limit is rejected with the limit in the reason, in IEC units")
    func oversizedBodyReason() {
        let store = HTTPJSONStore(container: nil)
        let url = URL(string: "http://127.0.0.1:9/recorder-oversized")!
        let recorder = HTTPJSONSessionRecorder(store: store, center: WidgetCenter())
        recorder.received(nil, session: "recorder-oversized", url: url, at: Date(timeIntervalSince1970: 0))
        let state = store.load(session: "recorder-oversized", url: url).state
        #expect(state.lastBodyRejected)
        #expect(state.lastError == "the answer is larger than 1 MiB")
    }
}
