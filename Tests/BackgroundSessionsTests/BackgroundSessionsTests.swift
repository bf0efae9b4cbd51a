import BackgroundSessions
import Dispatch
import FoundationEssentials
import Glibc
import LeaderboardServer
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

private let body = Array(#"{"heroes":[{"name":"Octo"}]}"#.utf8)

/// A manager on a fresh state directory with a loopback transport.
private func makeManager(_ transport: (any HTTPTransport)? = nil, state: String = scratchStatePath(),
                         now: (@Sendable () -> Date)? = nil,
                         retention: BackgroundSessionManager.Retention = .init()) throws -> BackgroundSessionManager {
    try BackgroundSessionManager.open(stateDirectory: state, transport: transport ?? loopbackTransport(),
                                      now: now ?? { Date() }, retention: retention)
}

/// A loopback server whose `/board` answers only once `answer` is signalled (at most 10 s).
private func heldBoardServer() throws -> (HTTPServer, String, DispatchSemaphore) {
    let answer = DispatchSemaphore(value: 0)
    let (server, base) = try loopbackServer {
        $0.route("/board") { _ in
            _ = answer.wait(timeout: .now() + .seconds(10))
            return .json(body)
        }
    }
    return (server, base, answer)
}

@Suite("Background sessions", .serialized)
struct BackgroundSessionsTests {
    @Test("events come in WidgetKit's order; the file exists during the call and is removed after; ack after completion")
    func deliveryOrder() async throws {
        // The answer waits until the test has seen the task in flight (a loaded machine could
        // otherwise finish the fetch first).
        let (server, base, answer) = try heldBoardServer()
        defer { server.stop() }
        let manager = try makeManager()
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let delegate = RecordingDelegate()
        let calls = Counter()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: calls) { $0 == "board" }
        let task = manager.session(identifier: "board").downloadTask(with: URL(string: base + "/board")!, taskDescription: "main")
        #expect(task.state == .running)
        #expect(try SessionsReport.text(stateDirectory: manager.stateDirectory).contains("task \(task.taskIdentifier) \"main\": in flight"))
        answer.signal()
        #expect(await delegate.lines(count: 3))
        #expect(delegate.lines == ["download \(task.taskIdentifier) exists=true", "complete \(task.taskIdentifier) nil", "finished board"])
        #expect(calls.count == 1)
        let delivered = try #require(delegate.files.withLock { $0.first })
        #expect(delivered.bytes == body)
        #expect(access(delivered.path, F_OK) != 0, "the delivered file is removed after the call")
        // Not acknowledged before the completion: journalled, and its file kept.
        let report = try SessionsReport.text(stateDirectory: manager.stateDirectory)
        #expect(report.contains("pending events: 1") && report.contains("downloaded 200, \(body.count) bytes") && report.contains("delivered 1x"))
        #expect(filesUnder(manager.filesDirectory(session: "board")) == ["task-\(task.taskIdentifier)"])
        delegate.callCompletion()
        #expect(await eventually { manager.pendingEvents.isEmpty })
        #expect(try SessionsReport.text(stateDirectory: manager.stateDirectory).contains("No background sessions"))
        // The files go with the journal's acknowledgement.
        #expect(await eventually { filesUnder(manager.filesDirectory(session: "board")).isEmpty })
        #expect(task.state == .completed && manager.isIdle)
    }

    @Test("whenIdle is called once the download ran and its event was acknowledged, not before; at once when idle")
    func whenIdleWaitsForTheAcknowledgement() async throws {
        let (server, base, answer) = try heldBoardServer()
        defer { server.stop() }
        let manager = try makeManager()
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let delegate = RecordingDelegate()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { _ in true }
        let atOnce = Mutex(false)
        manager.whenIdle { atOnce.withLock { $0 = true } }
        #expect(atOnce.withLock { $0 }, "an idle manager calls at once")
        _ = manager.session(identifier: "board").downloadTask(with: URL(string: base + "/board")!)
        let idle = Wakeup()
        let called = Mutex(0)
        manager.whenIdle {
            called.withLock { $0 += 1 }
            idle.ring()
        }
        answer.signal()
        #expect(await delegate.lines(count: 3))
        #expect(called.withLock { $0 } == 0, "the event waits for its completion handler")
        delegate.callCompletion()
        await idle.wait()
        #expect(manager.isIdle && called.withLock { $0 } == 1)
    }

    @Test("a 304 is delivered as notModified")
    func notModified() async throws {
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(body) } }
        defer { server.stop() }
        let manager = try makeManager()
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let delegate = RecordingDelegate()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { _ in true }
        let session = manager.session(identifier: "board")
        let first = session.downloadTask(with: URL(string: base + "/board")!)
        #expect(await delegate.lines(count: 3))
        delegate.callCompletion()
        #expect(await idle(manager))
        let second = session.downloadTask(with: URL(string: base + "/board")!)
        #expect(second.taskIdentifier != first.taskIdentifier)
        #expect(await delegate.lines(count: 5))
        let etag = HTTPResponse.entityTag(for: body)
        #expect(delegate.lines.suffix(2) == ["complete \(second.taskIdentifier) not modified", "finished board"])
        #expect(manager.pendingEvents.map(\.outcome) == [.notModified(Validators(etag: etag))])
        delegate.callCompletion()
        #expect(await idle(manager))
    }

    @Test("a 500 is retried and the next answer delivered, with the attempts counted")
    func retriedThenDelivered() async throws {
        let calls = Counter()
        let (server, base) = try loopbackServer {
            $0.route("/flaky") { _ in calls.next() == 1 ? .text("boom", status: 500) : .json(body) }
        }
        defer { server.stop() }
        let manager = try makeManager()
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let delegate = RecordingDelegate()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { _ in true }
        let task = manager.session(identifier: "flaky").downloadTask(with: URL(string: base + "/flaky")!)
        #expect(await delegate.lines(count: 3))
        #expect(delegate.lines[0] == "download \(task.taskIdentifier) exists=true")
        #expect(delegate.files.withLock { $0.first?.bytes } == body)
        #expect(task.attempts == 2)
        #expect(manager.pendingEvents.first?.summary == "downloaded 200, \(body.count) bytes after 2 tries")
        delegate.callCompletion()
        #expect(await idle(manager))
    }

    @Test("a final failure is delivered with its reason")
    func finalFailure() async throws {
        let (server, base) = try loopbackServer { _ in }
        defer { server.stop() }
        let manager = try makeManager()
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let delegate = RecordingDelegate()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { _ in true }
        let task = manager.session(identifier: "s").downloadTask(with: URL(string: base + "/missing")!)
        #expect(await delegate.lines(count: 2))
        #expect(delegate.lines == ["complete \(task.taskIdentifier) server answered 404 Not Found", "finished s"])
        #expect(try SessionsReport.text(stateDirectory: manager.stateDirectory).contains("failed: server answered 404 Not Found"))
        delegate.callCompletion()
        #expect(await idle(manager))
    }

    @Test("a handler registered by predicate on a widget configuration gets the events")
    func predicateHandler() async throws {
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(body) } }
        defer { server.stop() }
        let manager = try makeManager()
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let delegate = RecordingDelegate()
        let seen = Mutex<[String]>([])
        let config = WidgetConfiguration<String>(kind: "leaderboard", displayName: "Leaderboard",
                                                 makeProvider: { _ in throw CancellationError() }, view: { _, _ in "" })
            .onBackgroundSessionEvents(matching: { $0.hasPrefix("leaderboard.") }) { identifier, completion in
                seen.withLock { $0.append(identifier) }
                delegate.completion.withLock { $0 = SendableAction(completion) }
                _ = manager.session(identifier: identifier, delegate: delegate)
            }
        manager.eventRouter = BackgroundSessionManager.router(for: { [config] })
        let task = manager.session(identifier: "leaderboard.main").downloadTask(with: URL(string: base + "/board")!)
        #expect(await delegate.lines(count: 3))
        #expect(seen.withLock { $0 } == ["leaderboard.main"])
        #expect(delegate.lines.last == "finished leaderboard.main")
        #expect(delegate.lines.first == "download \(task.taskIdentifier) exists=true")
        delegate.callCompletion()
        #expect(await idle(manager))
    }

    @Test("events no widget matches are kept until a widget matches")
    func unmatchedKept() async throws {
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(body) } }
        defer { server.stop() }
        let manager = try makeManager()
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let routed = Counter()
        manager.eventRouter = { _ in _ = routed.next(); return nil }
        let task = manager.session(identifier: "orphan").downloadTask(with: URL(string: base + "/board")!)
        #expect(await eventually { routed.count >= 1 && manager.pendingEvents.count == 1 })
        #expect(manager.pendingEvents.first?.deliveryCount == 0)
        #expect(filesUnder(manager.filesDirectory(session: "orphan")) == ["task-\(task.taskIdentifier)"])
        let delegate = RecordingDelegate()
        let calls = Counter()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: calls) { $0 == "orphan" }
        manager.routePendingEvents()
        #expect(await delegate.lines(count: 3))
        #expect(calls.count == 1 && delegate.lines[1] == "complete \(task.taskIdentifier) nil")
        delegate.callCompletion()
        #expect(await idle(manager))
    }

    @Test("one task per session and URL; another session or URL gets its own")
    func oneTaskPerURL() async throws {
        var faults = FaultInjection()
        faults.delay = .milliseconds(300)
        let (server, base) = try loopbackServer(faults: { $0 = faults }) { $0.route("/slow") { _ in .json(body) } }
        defer { server.stop() }
        let manager = try makeManager()
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let url = URL(string: base + "/slow")!
        let a = manager.session(identifier: "a")
        let first = a.downloadTask(with: url)
        let again = a.downloadTask(with: url)
        let other = manager.session(identifier: "b").downloadTask(with: url)
        let otherURL = a.downloadTask(with: URL(string: base + "/slow?x=1")!)
        #expect(first === again)
        #expect(Set([first.taskIdentifier, other.taskIdentifier, otherURL.taskIdentifier]).count == 3)
        #expect(a.allTasks.map(\.taskIdentifier) == [first.taskIdentifier, otherURL.taskIdentifier])
        first.cancel()
        #expect(a.allTasks.map(\.taskIdentifier) == [otherURL.taskIdentifier])
        let replacement = a.downloadTask(with: url)
        #expect(replacement.taskIdentifier != first.taskIdentifier)
    }

    @Test("sessions are cached by identifier; a second call replaces the delegate")
    func cachedSessions() async throws {
        let (server, base) = try loopbackServer { $0.route("/board") { _ in .json(body) } }
        defer { server.stop() }
        let manager = try makeManager()
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let old = RecordingDelegate(), new = RecordingDelegate()
        let s1 = manager.session(identifier: "x", delegate: old)
        let s2 = manager.session(identifier: "x", delegate: new)
        #expect(s1 === s2 && s1 !== manager.session(identifier: "y"))
        #expect(s1.delegate === new)
        manager.eventRouter = { identifier in
            BackgroundSessionEventsHandler(matcher: .identifier(identifier)) { _, completion in new.completion.withLock { $0 = SendableAction(completion) } }
        }
        _ = s1.downloadTask(with: URL(string: base + "/board")!)
        #expect(await new.lines(count: 3))
        #expect(old.lines.isEmpty)
        new.callCompletion()
        #expect(await idle(manager))
    }

    @Test("request headers go to the transport with the task and never into the journal")
    func headers() throws {
        let transport = FakeTransport()
        let manager = try makeManager(transport)
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let url = URL(string: "http://127.0.0.1:9/feed")!
        let task = manager.session(identifier: "h").downloadTask(with: url, headers: ["Authorization": "Bearer s3cret-42"])
        #expect(transport.startedRequests.map(\.headers) == [["Authorization": "Bearer s3cret-42"]])
        #expect(manager.session(identifier: "h").downloadTask(with: url, headers: ["Authorization": "other"]).taskIdentifier
                == task.taskIdentifier, "joins the running task, which keeps its headers")
        #expect(transport.startedRequests.count == 1)
        let journal = BackgroundSessionManager.journalPath(stateDirectory: manager.stateDirectory)
        for path in [journal, journal + "-wal"] {
            let bytes = (try? FileContents.bytes(at: path)) ?? []
            #expect(!String(decoding: bytes, as: UTF8.self).contains("s3cret"), "\(path)")
        }
    }

    @Test("a cancelled task is delivered as cancelled")
    func cancelled() async throws {
        let transport = FakeTransport()
        let manager = try makeManager(transport)
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let delegate = RecordingDelegate()
        manager.eventRouter = widgetRouter(manager, delegate: delegate, calls: Counter()) { _ in true }
        let task = manager.session(identifier: "c").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        task.cancel()
        #expect(transport.cancelledIDs.count == 1)
        #expect(await delegate.lines(count: 2))
        #expect(delegate.lines == ["complete \(task.taskIdentifier) cancelled", "finished c"])
        delegate.callCompletion()
        #expect(await idle(manager))
    }

    @Test("a second manager on the same directory is unavailable and leaves the journal alone")
    func lock() async throws {
        let first = try makeManager(FakeTransport())
        defer { first.close(); removeTree(first.stateDirectory) }
        #expect(first.availability == .available)
        _ = first.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        let journal = BackgroundSessionManager.journalPath(stateDirectory: first.stateDirectory)
        let before = [try? FileContents.bytes(at: journal), try? FileContents.bytes(at: journal + "-wal")]
        let secondTransport = FakeTransport()
        let second = try makeManager(secondTransport, state: first.stateDirectory)
        defer { second.close() }
        guard case .unavailable(let message) = second.availability else {
            Issue.record("second manager got the lock")
            return
        }
        #expect(message == "another widgethost is using \(first.stateDirectory); background sessions are off")
        let delegate = RecordingDelegate()
        second.eventRouter = widgetRouter(second, delegate: delegate, calls: Counter()) { _ in true }
        let task = second.session(identifier: "s").downloadTask(with: URL(string: "http://127.0.0.1:9/x")!)
        #expect(await delegate.lines(count: 2))
        #expect(delegate.lines.first == "complete \(task.taskIdentifier) \(message)")
        delegate.callCompletion()
        #expect(await idle(second))
        #expect(secondTransport.startedRequests.isEmpty)
        #expect([try? FileContents.bytes(at: journal), try? FileContents.bytes(at: journal + "-wal")] == before)
        // Listing works while the first host holds the lock; purging does not.
        #expect(try SessionsReport.text(stateDirectory: first.stateDirectory).contains("in flight"))
        #expect(throws: SessionsReportError.locked(first.stateDirectory)) { try SessionsReport.purge(stateDirectory: first.stateDirectory) }
    }

    @Test("a restarted manager resumes an in-flight task under its identifier with today's URL")
    func resumeWithNewURL() async throws {
        let state = scratchStatePath()
        defer { removeTree(state) }
        let old = FakeTransport()
        let first = try makeManager(old, state: state)
        let task = first.session(identifier: "w").downloadTask(with: URL(string: "http://old.invalid/a")!, taskDescription: "board")
        first.close()
        let transport = FakeTransport()
        let second = try makeManager(transport, state: state)
        defer { second.close() }
        #expect(second.suspendedTasks.map(\.taskIdentifier) == [task.taskIdentifier])
        #expect(second.session(identifier: "w").allTasks.map(\.state) == [.suspended])
        let asked = Mutex<[String]>([])
        let resumed = second.resumeTasks { session, description in
            asked.withLock { $0.append("\(session)/\(description ?? "-")") }
            return URL(string: "http://new.invalid/b")
        }
        #expect(asked.withLock { $0 } == ["w/board"])
        #expect(resumed.map(\.taskIdentifier) == [task.taskIdentifier])
        #expect(transport.startedRequests.map(\.url) == ["http://new.invalid/b"])
        // The journal learns the new URL on the store's queue (`resumeTasks` may run on the loop's thread).
        #expect(await eventually {
            (try? SessionsReport.text(stateDirectory: state))?.contains("task \(task.taskIdentifier) \"board\": in flight, 0 attempts, http://new.invalid/b") == true
        })
        // A task whose widget is gone stays suspended until purged.
        let gone = second.session(identifier: "gone").downloadTask(with: URL(string: "http://x.invalid/")!)
        second.close()
        let third = try makeManager(FakeTransport(), state: state)
        #expect(third.resumeTasks { session, _ in session == "w" ? URL(string: "http://new.invalid/b") : nil }.count == 1)
        #expect(third.suspendedTasks.map(\.taskIdentifier) == [gone.taskIdentifier])
        third.close()
        #expect(try SessionsReport.purge(stateDirectory: state) == "Purged 2 tasks, 0 events and 0 files in \(state).\n")
        #expect(try SessionsReport.text(stateDirectory: state).contains("No background sessions"))
    }

    @Test("undelivered events are kept per identifier up to the retention limits")
    func retention() async throws {
        let now = TestNow(Date(timeIntervalSince1970: 1_800_000_000))
        let transport = FakeTransport()
        let state = scratchStatePath()
        defer { removeTree(state) }
        let manager = try makeManager(transport, state: state, now: { now.date },
                                      retention: .init(maxEventsPerSession: 2, maxAge: 3600))
        let session = manager.session(identifier: "r")
        var ids: [Int] = []
        for i in 0..<3 {
            let task = session.downloadTask(with: URL(string: "http://127.0.0.1:9/\(i)")!)
            ids.append(task.taskIdentifier)
            transport.finish(transport.runningIDs.last!, with: .failed(TransferFailure(kind: .connection, reason: "refused \(i)", attempts: 1)))
        }
        #expect(manager.pendingEvents.map(\.taskIdentifier) == Array(ids.suffix(2)))
        manager.close()
        now.advance(by: 3601)
        let reopened = try makeManager(FakeTransport(), state: state, now: { now.date },
                                       retention: .init(maxEventsPerSession: 2, maxAge: 3600))
        #expect(reopened.pendingEvents.isEmpty)
        reopened.close()
        #expect(try SessionsReport.text(stateDirectory: state).contains("No background sessions"))
    }
}
