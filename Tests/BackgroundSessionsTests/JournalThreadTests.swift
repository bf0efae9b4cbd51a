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

/// Which thread each journal write runs on (and whether it was on `queue`).
private final class WriteLog: Sendable {
    private let key = DispatchSpecificKey<Bool>()
    let queue = DispatchQueue(label: "test.delivery")
    private let entries = Mutex<[(BackgroundSessionManager.JournalWrite, Bool)]>([])

    init() { queue.setSpecific(key: key, value: true) }

    func record(_ write: BackgroundSessionManager.JournalWrite) {
        let onQueue = DispatchQueue.getSpecific(key: key) == true
        entries.withLock { $0.append((write, onQueue)) }
    }

    var all: [BackgroundSessionManager.JournalWrite] { entries.withLock { $0.map(\.0) } }
    var onDeliveryQueue: [BackgroundSessionManager.JournalWrite] { entries.withLock { $0.filter(\.1).map(\.0) } }
}

@Suite("Journal writes and the delivery queue (no fsync on the loop)", .serialized)
struct JournalThreadTests {
    @Test("a download started from the delivery queue without waiting: journalled at once when that is a WAL append, joined when running, nothing when the journal is held")
    func downloadWithoutWaiting() async throws {
        let log = WriteLog()
        let gate = Gate(), holding = Gate()
        let holdNext = Mutex(false)
        var hooks = BackgroundSessionManager.Hooks()
        hooks.beforeJournalWrite = { write in
            log.record(write)
            if write == .insertTask, holdNext.withLock({ h in defer { h = false }; return h }) {
                holding.open()
                gate.wait()
            }
        }
        let transport = FakeTransport()
        let manager = try BackgroundSessionManager.open(stateDirectory: scratchStatePath(), transport: transport,
                                                        hooks: hooks, deliveryQueue: log.queue)
        defer {
            gate.open()
            manager.close()
            removeTree(manager.stateDirectory)
        }
        let session = manager.session(identifier: "s")
        let urls = (1...4).map { URL(string: "http://127.0.0.1:9/\($0)")! }
        #expect(log.queue.sync { session.downloadTaskWithoutWaiting(with: urls[0]) } == nil,
                "the first commit after opening may fsync: not on the loop")
        #expect(transport.startedRequests.isEmpty && session.allTasks.isEmpty)
        _ = session.downloadTask(with: urls[0])  // off the loop
        #expect(transport.startedRequests.count == 1)
        let (joined, started) = log.queue.sync {
            (session.downloadTaskWithoutWaiting(with: urls[0]), session.downloadTaskWithoutWaiting(with: urls[1]))
        }
        #expect(joined?.taskIdentifier == session.allTasks.first?.taskIdentifier, "the running task is joined")
        #expect(started != nil && transport.startedRequests.map(\.url) == [urls[0], urls[1]].map(\.absoluteString))
        #expect(log.onDeliveryQueue == [.insertTask], "its insert made at once on the delivery queue")
        // Another thread holds the journal (inside its insert): nothing waits, nothing starts.
        holdNext.withLock { $0 = true }
        // On a thread of its own: the body blocks in `holding.wait()`, and on the cooperative
        // pool of a loaded full run the task did not get a thread for a minute.
        let other = Task(executorPreference: OwnThreads.extensionTasks) { session.downloadTask(with: urls[2]) }
        holding.wait()
        #expect(log.queue.sync { session.downloadTaskWithoutWaiting(with: urls[3]) } == nil)
        gate.open()
        _ = await other.value
        #expect(transport.startedRequests.count == 3 && !transport.startedRequests.contains { $0.url == urls[3].absoluteString })
        #expect(session.allTasks.count == 3, "nothing journalled for the refused one")
        for id in transport.runningIDs { _ = transport.finish(id, with: .cancelled) }
    }

    @Test("a delivery's journal writes are made at once on the delivery queue (WAL appends); the checkpoint, the only fsync, never is")
    func deliveryWritesOnTheLoop() async throws {
        let log = WriteLog()
        var hooks = BackgroundSessionManager.Hooks()
        hooks.beforeJournalWrite = { log.record($0) }
        hooks.checkpointFrames = 1  // every result checkpoints first
        let transport = FakeTransport()
        let manager = try BackgroundSessionManager.open(stateDirectory: scratchStatePath(), transport: transport,
                                                        hooks: hooks, deliveryQueue: log.queue)
        defer {
            manager.close()
            removeTree(manager.stateDirectory)
        }
        let delegate = RecordingDelegate()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { _ in true }
        for round in 1...2 {
            _ = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
            #expect(transport.finish(try #require(transport.runningIDs.last), with: .notModified(Validators(etag: "\"1\""))))
            #expect(await delegate.lines(count: 2 * round))
            delegate.callCompletion()
            #expect(await idle(manager))
        }
        #expect(log.all == [.forgetTasks, .insertTask, .checkpoint, .recordResult, .recordDelivery, .acknowledge, .forgetTasks,
                            .insertTask, .checkpoint, .recordResult, .recordDelivery, .acknowledge, .forgetTasks])
        #expect(log.onDeliveryQueue == [.recordDelivery, .acknowledge, .forgetTasks,
                                        .recordDelivery, .acknowledge, .forgetTasks])
    }

    @Test("a journal held by another thread (a checkpoint on a slow disk) holds up neither the delivery queue nor the manager: the acknowledgement is queued")
    func busyJournal() async throws {
        let gate = Gate()
        let armed = Mutex(false)
        let log = WriteLog()
        var hooks = BackgroundSessionManager.Hooks()
        hooks.beforeJournalWrite = { log.record($0) }
        // Inside the second result's transaction: the journal is held by the "transport".
        hooks.duringJournalWrite = { if armed.withLock({ $0 }) { gate.wait() } }
        let transport = FakeTransport()
        let manager = try BackgroundSessionManager.open(stateDirectory: scratchStatePath(), transport: transport,
                                                        hooks: hooks, deliveryQueue: log.queue)
        defer {
            gate.open()
            manager.close()
            removeTree(manager.stateDirectory)
        }
        let delegate = RecordingDelegate()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { $0 == "a" }
        let first = manager.session(identifier: "a").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        #expect(transport.finish(try #require(transport.runningIDs.first), with: .notModified(Validators(etag: "\"1\""))))
        #expect(await delegate.lines(count: 2))
        #expect(delegate.lines == ["complete \(first.taskIdentifier) not modified", "finished a"])

        // Another session's result is being recorded, and the journal is stuck in it.
        _ = manager.session(identifier: "b").downloadTask(with: URL(string: "http://127.0.0.1:9/y")!)
        let second = try #require(transport.runningIDs.first)
        armed.withLock { $0 = true }
        let recorded = Mutex(false)
        DispatchQueue(label: "test.transport").async {
            _ = transport.finish(second, with: .notModified(Validators(etag: "\"2\"")))
            recorded.withLock { $0 = true }
        }
        #expect(await eventually { log.all.last == .recordResult })
        delegate.callCompletion()

        // The delivery queue runs on (the acknowledgement did not wait for the journal) and
        // the manager answers (its lock is not held across the write).
        let ran = Mutex(false)
        log.queue.async { ran.withLock { $0 = true } }
        #expect(await eventually(within: 2) { ran.withLock { $0 } }, "the delivery queue is not waiting for the journal")
        #expect(manager.pendingEvents.map(\.taskIdentifier) == [first.taskIdentifier], "kept until the journal has acknowledged")
        #expect(!manager.isIdle)
        _ = manager.session(identifier: "a")

        gate.open()
        #expect(await eventually { recorded.withLock { $0 } && !log.all.filter { $0 == .acknowledge }.isEmpty })
        #expect(await eventually { manager.pendingEvents.map(\.sessionIdentifier) == ["b"] })
        #expect(!log.onDeliveryQueue.contains(.acknowledge), "queued, made on the store's queue")
    }

    @Test("after opening, the first commit (it may start the WAL and fsync its header) is not made on the delivery queue")
    func firstCommitOffTheLoop() async throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        do {
            let transport = FakeTransport()
            let first = try BackgroundSessionManager.open(stateDirectory: state, transport: transport)
            _ = first.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
            #expect(transport.finish(try #require(transport.runningIDs.first), with: .notModified(Validators(etag: "\"1\""))))
            first.close()  // not delivered: kept; closing checkpoints and removes the WAL
        }
        let log = WriteLog()
        var hooks = BackgroundSessionManager.Hooks()
        hooks.beforeJournalWrite = { log.record($0) }
        let second = try BackgroundSessionManager.open(stateDirectory: state, transport: FakeTransport(),
                                                       hooks: hooks, deliveryQueue: log.queue)
        defer { second.close() }
        let delegate = RecordingDelegate()
        second.eventRouter = widgetRouter(second, delegate: delegate, calls: Counter()) { _ in true }
        second.routePendingEvents()
        #expect(await delegate.lines(count: 2))
        delegate.callCompletion()
        #expect(await idle(second))
        #expect(log.all.suffix(3) == [.recordDelivery, .acknowledge, .forgetTasks])
        // The first commit is queued (the WAL was empty), never made on the delivery queue.
        // The acknowledgement after it is made at once when that commit has finished by then,
        // and queued behind it when not (a race with the store's queue a loaded run loses
        // about one time in fifteen): either way the delivery queue only appends.
        #expect(!log.onDeliveryQueue.contains(.recordDelivery))
        #expect(log.onDeliveryQueue == [.acknowledge, .forgetTasks] || log.onDeliveryQueue.isEmpty, "\(log.onDeliveryQueue)")
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
    @Test("a batch the journal refuses to acknowledge is delivered again after a wait, not at once round the loop; acknowledged once the journal takes it")
    func refusedAcknowledgementWaits() async throws {
        var hooks = BackgroundSessionManager.Hooks()
        // The retry's wait (5 s, the real figure) in simulated time.
        let clock = ManualClock()
        hooks.acknowledgeRetryClock = clock
        let transport = FakeTransport()
        let queue = DispatchQueue(label: "test.delivery")
        let manager = try BackgroundSessionManager.open(stateDirectory: scratchStatePath(), transport: transport,
                                                        hooks: hooks, deliveryQueue: queue)
        defer {
            manager.close()
            removeTree(manager.stateDirectory)
        }
        // A widget whose completion is called as its events finish (as http-json's is).
        let finished = Counter()
        let handler = BackgroundSessionEventsHandler(matcher: .predicate { _ in true }) { identifier, completion in
            _ = manager.session(identifier: identifier, delegate: CompletingDelegate(finished: finished, completion: completion))
        }
        manager.eventRouter = { _ in handler }
        // The journal refuses to delete events, as a full disk would make it fail.
        try refuseAcknowledgements(manager.stateDirectory, true)
        _ = manager.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        #expect(transport.finish(try #require(transport.runningIDs.last), with: .notModified(Validators(etag: "\"1\""))))
        #expect(await eventually { finished.count >= 1 })
        let start = clock.now
        let wait = 5.0  // BackgroundSessionManager.acknowledgeRetrySeconds
        // The refused acknowledgement schedules the retry on the clock: nothing runs until it moves.
        #expect(await eventually { clock.pendingCount == 1 })
        #expect(clock.nextScheduledDate == start.addingTimeInterval(wait))
        clock.advance(by: wait - 0.5)
        #expect(finished.count == 1, "delivered \(finished.count) times: not again before the wait")
        clock.advance(by: 0.5)
        #expect(await eventually { finished.count >= 2 }, "delivered again after the wait")
        #expect(manager.pendingEvents.count == 1, "the event is kept")
        try refuseAcknowledgements(manager.stateDirectory, false)
        // The second acknowledgement was refused too (another retry waits), or came after the change.
        #expect(await eventually { manager.pendingEvents.isEmpty || clock.pendingCount == 1 })
        clock.advance(by: wait)
        #expect(await eventually { manager.pendingEvents.isEmpty }, "acknowledged once the journal takes it")
    }
}

/// Calls its handler's completion as the events finish, counting them.
private final class CompletingDelegate: BackgroundSessionDelegate {
    let finished: Counter
    let completion: @Sendable () -> Void

    init(finished: Counter, completion: @escaping @Sendable () -> Void) {
        self.finished = finished
        self.completion = completion
    }

    func urlSession(_ session: BackgroundSession, downloadTask: BackgroundDownloadTask, didFinishDownloadingTo location: URL) {}
    func urlSession(_ session: BackgroundSession, task: BackgroundDownloadTask, didCompleteWithError error: BackgroundTaskError?) {}
    func urlSessionDidFinishEvents(forBackgroundURLSession session: BackgroundSession) {
        _ = finished.next()
        completion()
    }
}
