import BackgroundSessions
import Synchronization
import Testing
import WidgetTestSupport

@Suite("Fake transport")
struct FakeTransportTests {
    @Test("records requests and delivers the events a test chooses, once")
    func scripted() {
        let fake = FakeTransport()
        let events = Mutex<[TransferEvent]>([])
        let request = TransferRequest(url: "http://example.invalid/a", directory: "/tmp", fileName: "a")
        let id = fake.start(request) { event in events.withLock { $0.append(event) } }
        #expect(fake.startedRequests == [request])
        #expect(fake.runningIDs == [id])
        #expect(fake.emit(id, .retrying(attempt: 1, delay: .seconds(1), reason: "connection refused")))
        #expect(fake.finish(id, with: .notModified(Validators(etag: "\"1\""))))
        #expect(!fake.finish(id, with: .cancelled))
        fake.cancel(id)
        #expect(events.withLock { $0 } == [.retrying(attempt: 1, delay: .seconds(1), reason: "connection refused"),
                                          .finished(.notModified(Validators(etag: "\"1\"")))])
        #expect(fake.runningIDs.isEmpty && fake.cancelledIDs.isEmpty)
    }

    @Test("cancelling a running transfer ends it as cancelled")
    func cancel() {
        let fake = FakeTransport()
        let events = Mutex<[TransferEvent]>([])
        let id = fake.start(TransferRequest(url: "http://x.invalid/", directory: "/tmp", fileName: "b")) { e in events.withLock { $0.append(e) } }
        fake.cancel(id)
        #expect(fake.cancelledIDs == [id])
        #expect(events.withLock { $0 } == [.finished(.cancelled)])
    }
}
