import BackgroundSessions
import Dispatch
import FoundationEssentials
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

/// A door a journal write waits at (at most 30 s, so a broken manager fails instead of hanging).
private final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)
    private let opened = Mutex(false)

    func wait() { _ = semaphore.wait(timeout: .now() + .seconds(30)) }

    func open() {
        guard opened.withLock({ o in defer { o = true }; return !o }) else { return }
        semaphore.signal()
    }
}

@Suite("Journal writes and the delivery queue (no fsync on the loop)", .serialized)
struct JournalThreadTests {
    @Test("an acknowledgement stuck in the journal (a slow disk) holds up neither the delivery queue nor the manager")
    func slowAcknowledgement() async throws {
        let gate = Gate()
        let deliveryKey = DispatchSpecificKey<Bool>()
        let delivery = DispatchQueue(label: "test.delivery")
        delivery.setSpecific(key: deliveryKey, value: true)
        let writes = Mutex<[BackgroundSessionManager.JournalWrite]>([])
        let onDeliveryQueue = Mutex<[BackgroundSessionManager.JournalWrite]>([])
        var hooks = BackgroundSessionManager.Hooks()
        hooks.beforeJournalWrite = { write in
            writes.withLock { $0.append(write) }
            if DispatchQueue.getSpecific(key: deliveryKey) == true { onDeliveryQueue.withLock { $0.append(write) } }
            if write == .acknowledge { gate.wait() }
        }
        let transport = FakeTransport()
        let manager = try BackgroundSessionManager.open(stateDirectory: scratchStatePath(), transport: transport,
                                                        hooks: hooks, deliveryQueue: delivery)
        defer {
            gate.open()
            manager.close()
            removeTree(manager.stateDirectory)
        }
        let delegate = RecordingDelegate()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { _ in true }
        let task = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        #expect(transport.finish(try #require(transport.runningIDs.first), with: .notModified(Validators(etag: "\"1\""))))
        #expect(await eventually { delegate.lines.count == 2 })
        #expect(delegate.lines == ["complete \(task.taskIdentifier) not modified", "finished s"])
        delegate.callCompletion()
        #expect(await eventually { writes.withLock { $0.contains(.acknowledge) } })

        // The acknowledgement is stuck in the journal: the delivery queue runs on, and the
        // manager's state answers (its lock is not held across the write).
        let ran = Mutex(false)
        delivery.async { ran.withLock { $0 = true } }
        #expect(await eventually(within: 2) { ran.withLock { $0 } }, "the delivery queue is not waiting for the journal")
        #expect(manager.pendingEvents.count == 1, "kept until the journal has acknowledged")
        #expect(!manager.isIdle)
        _ = manager.session(identifier: "s")

        gate.open()
        #expect(await eventually { manager.isIdle })
        #expect(onDeliveryQueue.withLock { $0 }.isEmpty)
        // Opening forgets settled tasks first.
        #expect(writes.withLock { $0 } == [.forgetTasks, .insertTask, .recordResult, .recordDelivery, .acknowledge, .forgetTasks])
    }

    @Test("a resumed task's journal update is queued, not waited for: resumeTasks may run on the loop's thread")
    func resumeDoesNotWait() async throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        let first = try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport())
        _ = first.session(identifier: "w").downloadTask(with: URL(string: "http://old.invalid/a")!)
        first.close()

        let gate = Gate()
        let writes = Mutex<[BackgroundSessionManager.JournalWrite]>([])
        var hooks = BackgroundSessionManager.Hooks()
        hooks.beforeJournalWrite = { write in
            writes.withLock { $0.append(write) }
            if write == .updateTaskURL { gate.wait() }
        }
        let transport = FakeTransport()
        let second = try BackgroundSessionManager.open(stateDirectory: state, transport: transport, hooks: hooks)
        defer {
            gate.open()
            second.close()
        }
        let started = ContinuousClock.now
        let resumed = second.resumeTasks { _, _ in URL(string: "http://new.invalid/b") }
        #expect(started.duration(to: .now) < .seconds(5), "resumeTasks did not wait for the stuck write")
        #expect(resumed.count == 1 && transport.startedRequests.map(\.url) == ["http://new.invalid/b"])
        #expect(await eventually { writes.withLock { $0.last } == .updateTaskURL })
        gate.open()
    }
}
