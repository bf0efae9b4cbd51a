import BackgroundSessions
import Dispatch
import FoundationEssentials
import LeaderboardServer
import Synchronization
import Testing
import WidgetTestSupport

private let boardBody = Array(#"{"heroes":[{"name":"Cake"}]}"#.utf8)

/// Everything one transfer reported, for tests that act while it runs.
private final class TransferLog: Sendable {
    private let events = RecordedEvents<TransferEvent>()

    func record(_ event: TransferEvent) { events.append(event) }

    var retries: [TransferEvent] { events.values.retries }

    var result: TransferResult? { events.values.result }

    /// Waits (bounded) until `condition` holds of the events so far: each event checks it again.
    func wait(within seconds: Double = 30, until condition: @escaping @Sendable ([TransferEvent]) -> Bool) async -> Bool {
        await events.wait(within: seconds, until: condition)
    }
}

private extension Array where Element == TransferEvent {
    var retries: [TransferEvent] { filter { if case .retrying = $0 { true } else { false } } }

    var result: TransferResult? {
        for case .finished(let result) in self { return result }
        return nil
    }
}

/// A loopback `/board` server with `faults`, counting every answered request (faulted ones too).
private func faultyServer(_ faults: FaultInjection, requests: Counter) throws -> (HTTPServer, String) {
    var config = HTTPServerConfiguration()
    config.faults = faults
    let server = HTTPServer(configuration: config, accessLog: { _ in _ = requests.next() })
    server.route("/board") { _ in .json(boardBody) }
    return (server, "http://127.0.0.1:\(try server.start())")
}

/// The first seed under which `faults` gives request 0 `first` and request 1 `then`, so a
/// test sees one fault and then a good answer, repeatably.
private func seed(_ faults: FaultInjection, first: Fault, then: Fault) -> UInt64 {
    var probe = faults
    for seed in UInt64(0)... {
        probe.seed = seed
        if probe.fault(forRequest: 0) == first && probe.fault(forRequest: 1) == then { return seed }
    }
    fatalError("no seed")
}

@Suite("Retry now (a user's reload cuts a backoff short)", .serialized)
struct RetryNowTests {
    @Test("a transfer waiting out a 90 s backoff starts its next attempt at once after retryNow, and succeeds")
    func cutsBackoffShort() async throws {
        var faults = FaultInjection()
        faults.failureRate = 0.5
        faults.seed = seed(faults, first: .serverError, then: .none)
        let requests = Counter()
        let (server, base) = try faultyServer(faults, requests: requests)
        defer { server.stop() }
        let transport = try loopbackTransport {
            // A long wait (90 s), so that a loaded machine that is slow to notice the retry
            // still finds the transfer waiting.
            $0.retry = RetryPolicy(maxAttempts: 3, baseDelay: .seconds(120), maxDelay: .seconds(240), jitter: { 0.5 })
            $0.transferDeadline = .seconds(600)
        }
        let dir = ScratchDirectory()
        let log = TransferLog()
        let id = transport.start(TransferRequest(url: base + "/board", directory: dir.path, fileName: "board.json"), events: log.record)

        #expect(await log.wait { !$0.retries.isEmpty })
        #expect(log.retries == [.retrying(attempt: 1, delay: .milliseconds(90_000), reason: "server answered 500 Internal Server Error")])
        let asked = ContinuousClock.now
        #expect(transport.retryNow(id) == .retrying)
        #expect(transport.retryNow(id) == .notWaiting, "the next attempt is already under way")
        // Well inside the 90 s the backoff had left.
        #expect(await log.wait(within: 10) { $0.result != nil })
        #expect(asked.duration(to: .now) < .seconds(10))
        let file = try #require(log.result?.file)
        #expect(file.attempts == 2 && file.status == 200)
        #expect(dir.contents(of: "board.json") == boardBody)
        #expect(await eventually { requests.count == 2 })
        #expect(transport.retryNow(id) == .notWaiting, "a finished transfer has nothing to cut short")
    }

    @Test("a transfer waiting on Retry-After: 30 is not retried early; retryNow reports the remaining wait")
    func honoursRetryAfter() async throws {
        var faults = FaultInjection()
        faults.tooManyRequestsRate = 1
        faults.retryAfter = .seconds(30)
        let requests = Counter()
        let (server, base) = try faultyServer(faults, requests: requests)
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let log = TransferLog()
        let id = transport.start(TransferRequest(url: base + "/board", directory: dir.path, fileName: "board.json"), events: log.record)

        #expect(await log.wait { !$0.retries.isEmpty })
        #expect(log.retries == [.retrying(attempt: 1, delay: .seconds(30), reason: "server answered 429 Too Many Requests")])
        // The access log is written after the answer is sent, so it may trail the event.
        #expect(await eventually { requests.count == 1 })
        guard case .honouringRetryAfter(let remaining) = transport.retryNow(id) else {
            Issue.record("a server's Retry-After must be honoured")
            return
        }
        #expect(remaining > .seconds(20) && remaining <= .seconds(30))
        // Honouring it needs no wake-up: the network thread goes on sleeping, no second request.
        let thread = try #require(transport.networkThreadID)
        #expect(waitUntilBlockedInPoll(thread: thread))
        #expect(requests.count == 1)
        guard case .honouringRetryAfter(let later) = transport.retryNow(id) else {
            Issue.record("still waiting on the server")
            return
        }
        #expect(later <= remaining)
        transport.cancel(id)
        #expect(await log.wait { $0.result != nil })
        #expect(log.result == .cancelled)
        #expect(requests.count == 1)
        #expect(transport.retryNow(id) == .notWaiting)
    }

    @Test("retryNow on an attempt in flight, a finished or an unknown transfer is .notWaiting")
    func notWaiting() async throws {
        let arrived = Counter()
        let gate = DispatchSemaphore(value: 0)
        let (server, base) = try loopbackServer {
            $0.route("/slow") { _ in
                _ = arrived.next()
                _ = gate.wait(timeout: .now() + 10)
                return .json(boardBody)
            }
        }
        defer { server.stop() }
        let transport = try loopbackTransport()
        let dir = ScratchDirectory()
        let log = TransferLog()
        #expect(transport.retryNow(TransferID(rawValue: 999)) == .notWaiting)
        let id = transport.start(TransferRequest(url: base + "/slow", directory: dir.path, fileName: "f"), events: log.record)
        #expect(await eventually { arrived.count == 1 })
        #expect(transport.retryNow(id) == .notWaiting, "an attempt in flight")
        gate.signal()
        #expect(await log.wait { $0.result != nil })
        #expect(log.result?.file?.attempts == 1)
        #expect(transport.retryNow(id) == .notWaiting, "finished")
    }

    @Test("a task's retryNow reaches its transfer: a backoff is cut, Retry-After kept, nothing once completed")
    func taskRetryNow() async throws {
        let transport = FakeTransport()
        let manager = try BackgroundSessionManager.open(stateDirectory: scratchStatePath(), transport: transport)
        defer { manager.close(); removeTree(manager.stateDirectory) }
        let task = manager.session(identifier: "board").downloadTask(with: URL(string: "http://127.0.0.1:9/board")!)
        let id = try #require(transport.runningIDs.first)
        #expect(task.retryNow() == .notWaiting, "the first attempt is under way")

        transport.emit(id, .retrying(attempt: 1, delay: .seconds(30), reason: "connection refused"))
        #expect(task.attempts == 1 && task.lastError == "connection refused")
        #expect(task.retryNow() == .retrying)
        #expect(transport.expeditedIDs == [id])

        transport.emitRetryAfter(id, attempt: 2, wait: .seconds(30), reason: "server answered 429 Too Many Requests")
        #expect(task.lastError == "server answered 429 Too Many Requests")
        #expect(task.retryNow() == .honouringRetryAfter(remaining: .seconds(30)))
        #expect(manager.retryNow(taskIdentifier: task.taskIdentifier) == .honouringRetryAfter(remaining: .seconds(30)))
        #expect(transport.expeditedIDs == [id])

        transport.finish(id, with: .cancelled)
        #expect(task.state == .completed)
        #expect(task.retryNow() == .notWaiting)
        #expect(manager.retryNow(taskIdentifier: 12_345) == .notWaiting)
    }
}
