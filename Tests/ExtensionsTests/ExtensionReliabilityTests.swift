#if canImport(Glibc)
import Glibc
#endif
@testable import BackgroundSessions
@testable import Extensions
import FoundationEssentials
import JSONTree
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

/// An extension that misbehaves (never reads, never answers) holds up nothing of the host's:
/// not a provider thread, not its stop, not the user's `r`; session deliveries take a bounded
/// number of threads.
@Suite("Extension host reliability", .serialized, .onOwnThreads(.awaitingExtensions))
struct ExtensionReliabilityTests {
    /// How the host stops an extension, for `stopsAtOnceWithAFullPipe`.
    enum Stop: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case configReload = "a config reload that removes it", quit = "the host quitting (stopAll)"
        var testDescription: String { rawValue }
    }

    @Test("an extension that never reads its stdin, its pipe full: stopping it takes no longer than the grace, not requestSeconds",
          arguments: Stop.allCases)
    func stopsAtOnceWithAFullPipe(_ stop: Stop) async throws {
        let fake = try FakeExtension(script: "never-reads.sh", limits: #"{"requestSeconds": 10}"#)
        defer { fake.close() }
        // 200 KiB of options: more than a pipe holds (64 KiB).
        let big = String(repeating: "x", count: 200 * 1024)
        let request = Task(executorPreference: OwnThreads.extensionTasks) { () -> ExtensionError? in
            do throws(ExtensionError) {
                _ = try await fake.host.request("timeline", params: RPCMessage.object([("options", .string(big))]))
                return nil
            } catch {
                return error
            }
        }
        // The pipe to its stdin holds more than `initialize`: the host is writing the request.
        // (A launch takes seconds on a loaded 2-core machine: 20 s, not 5.)
        #expect(await eventually(within: 20) { (fake.host.state.withLock { $0.connection }.map { queuedBytes($0.input) } ?? 0) > 4096 })
        let pid = try #require(fake.host.status.pid)
        let started = ContinuousClock.now
        switch stop {
        case .configReload: fake.runtime.update([]) { _ in "removed" }
        case .quit: fake.runtime.stopAll(graceSeconds: 0.2)
        }
        let took = ContinuousClock.now - started
        #expect(took < .seconds(1), "stopping took \(took)")
        // It ignores SIGTERM: SIGKILL ends it, and the request fails then (not at its timeout).
        #expect(await fake.exit(of: pid, within: 5) == .signalled(SIGKILL))
        let error = await request.value
        #expect(error.map { if case .stopped = $0 { true } else { false } } == true, "\(String(describing: error))")
        #expect(ContinuousClock.now - started < .seconds(5))
    }

    @Test("once the host quits (stopAll), nothing relaunches the extension: a request still coming (a delivery, a provider call) fails at once")
    func noRelaunchAfterQuit() async throws {
        let fake = try FakeExtension(script: "answers.sh")
        defer { fake.close() }
        _ = try await fake.timeline()
        #expect(fake.host.status.launches == 1)
        fake.runtime.stopAll(graceSeconds: 0.2)
        await #expect(throws: ExtensionError.stopped("the host is quitting")) { try await fake.timeline(userInitiated: true) }
        #expect(fake.host.status.launches == 1 && !fake.host.status.isRunning)
    }

    @Test("requests to a hung extension hold no provider thread: five wait on one thread while other work runs")
    func hungRequestsHoldNoThread() async throws {
        let fake = try FakeExtension(script: "hangs.sh", limits: #"{"requestSeconds": 10}"#)
        defer { fake.close() }
        let executor = ThreadTaskExecutor(maximumThreads: 1)
        var hung: [Task<Void, Never>] = []
        for index in 0..<5 {
            hung.append(Task(executorPreference: executor) { _ = try? await fake.timeline(instance: "panel#\(index)") })
        }
        defer { hung.forEach { $0.cancel() } }
        let ran = Mutex(false)
        _ = Task(executorPreference: executor) { ran.withLock { $0 = true } }
        #expect(await eventually(within: 3) { ran.withLock { $0 } }, "the executor's only thread is blocked")
        // All five are in flight at once, on the one thread.
        #expect(await eventually(within: 3) { fake.host.state.withLock { $0.connection }?.state.withLock { $0.pending.count } == 5 })
        #expect(executor.startedThreads == 1)
    }

    @Test("cancelling a request's task ends its wait at once with .cancelled (also when cancelled before it was sent); it is forgotten")
    func cancelledRequests() async throws {
        let fake = try FakeExtension(script: "hangs.sh", limits: #"{"requestSeconds": 10}"#, debug: true)
        defer { fake.close() }
        // The timeline requests pending (not `initialize`, which may still be on its way).
        let pending = { fake.host.state.withLock { $0.connection }?.state.withLock { $0.pending.values.filter { $0.label.hasPrefix("timeline") }.count } }
        let request = Task(executorPreference: OwnThreads.extensionTasks) { () async -> Result<JSONValueSummary, ExtensionError> in
            do throws(ExtensionError) { return .success(try await fake.timeline()) } catch { return .failure(error) }
        }
        // The timeline sent, and initialize answered (pending alone once counted 1 with only
        // initialize in flight, and the cancelled request was then still on its way).
        #expect(await fake.sent("timeline"))
        #expect(await eventually { pending() == 1 })
        let started = ContinuousClock.now
        request.cancel()
        #expect(await request.value == .failure(.cancelled))
        #expect(ContinuousClock.now - started < .seconds(2), "not the 10 s timeout")
        #expect(pending() == 0)
        let early = Task(executorPreference: OwnThreads.extensionTasks) { () async -> Result<JSONValueSummary, ExtensionError> in
            withUnsafeCurrentTask { $0?.cancel() }
            do throws(ExtensionError) { return .success(try await fake.timeline()) } catch { return .failure(error) }
        }
        #expect(await early.value == .failure(.cancelled))
        #expect(pending() == 0)
        #expect(fake.host.status.launches == 1 && fake.host.status.crashesInARow == 0)
    }

    @Test("a request that timed out is logged; r on its panel relaunches the hung extension, other reloads keep it")
    func userReloadRelaunchesAHungExtension() async throws {
        let clock = TestExtensionClock()
        let fake = try FakeExtension(script: "hangs.sh", limits: #"{"requestSeconds": 1}"#, debug: true, clock: clock)
        defer { fake.close() }
        #expect(await timingOut(fake, clock) == .timedOut(seconds: 1))
        #expect(fake.logLines.contains("error: fake: timeline for panel#1 timed out after 1 s"), "\(fake.logLines)")
        let pid = try #require(fake.host.status.pid)
        // A scheduled reload keeps the process (the backoff and idle exit decide).
        #expect(await timingOut(fake, clock) == .timedOut(seconds: 1))
        #expect(fake.host.status.launches == 1 && fake.host.status.pid == pid)
        // r: a new process; the hung one is stopped.
        #expect(await timingOut(fake, clock, userInitiated: true) == .timedOut(seconds: 1))
        #expect(fake.host.status.launches == 2 && fake.host.status.pid != pid)
        #expect(await fake.exit(of: pid, within: 5) != nil)
        #expect(fake.host.status.crashesInARow == 0)
    }

    @Test("3,000 session deliveries at once: a bounded number of delivery threads, every one delivered")
    func boundedDeliveries() async throws {
        let fake = try FakeExtension(script: "answers-events.sh", limits: #"{"requestSeconds": 10}"#)
        defer { fake.close() }
        let delivered = Mutex(0)
        for index in 0..<3000 {
            let event = RPCMessage.object([("task", .integer(index)), ("status", .string("downloaded"))])
            fake.host.startDelivery(SessionDelivery(identifier: "s\(index)", events: [event], files: [],
                                                    completion: { delivered.withLock { $0 += 1 } }))
        }
        var peak = deliveryThreads()
        #expect(await eventually(within: 60) {
            peak = max(peak, deliveryThreads())
            return delivered.withLock { $0 } == 3000
        }, "\(delivered.withLock { $0 }) delivered")
        // One thread per extension; the count is the process's, and other suites' extensions
        // deliver meanwhile (a full run saw 3): a thread per delivery would show hundreds.
        #expect(peak <= 8, "\(peak) delivery threads at once")
        #expect(await fake.logged("info: fake stderr: answered 3000"))
        #expect(fake.host.status.launches == 1)
        #expect(await eventually { deliveryThreads() == 0 }, "the delivery thread ends when there is nothing to deliver")
    }

    @Test("3,000 sessions finishing while the extension is busy (stopped), through the session manager: one delivery thread, every event delivered and acknowledged")
    func boundedDeliveriesThroughTheManager() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 120}"#, script: "answers-events.sh")
        defer { rig.close() }
        // Launched, then stopped (SIGSTOP) so that no delivery is answered while they all come.
        await #expect(throws: ExtensionError.self) { _ = try await rig.fake.host.request("ping", params: nil) }
        let pid = try #require(rig.fake.host.status.pid)
        kill(pid, SIGSTOP)
        let count = 3000
        for index in 0..<count {
            let url = try #require(URL(string: "http://127.0.0.1:9/file\(index)"))
            _ = rig.manager.session(identifier: "ext.fake.s\(index)").downloadTask(with: url)
        }
        #expect(await rig.transport.wait(within: 60) { $0.runningIDs.count == count })
        // Every transfer runs, so the running ids and the started requests are in the same order.
        for (id, request) in zip(rig.transport.runningIDs, rig.transport.startedRequests) {
            let body = Array("body of \(request.url)".utf8)
            let fd = open(request.destinationPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
            _ = body.withUnsafeBytes { write(fd, $0.baseAddress!, body.count) }
            close(fd)
            _ = rig.transport.finish(id, with: .downloaded(DownloadedFile(path: request.destinationPath, status: 200, byteCount: body.count,
                                                                          validators: Validators(), attempts: 1)))
        }
        // All handed to the host: one waits for its answer, the others in the queue.
        var peak = deliveryThreads()
        #expect(await eventually(within: 60) {
            peak = max(peak, deliveryThreads())
            return rig.fake.host.state.withLock { $0.deliveries.count } == count - 1
        })
        kill(pid, SIGCONT)
        #expect(await eventually(within: 60) {
            peak = max(peak, deliveryThreads())
            return rig.manager.pendingEvents.isEmpty
        }, "\(rig.manager.pendingEvents.count) events not acknowledged")
        // One delivers; the one before may still be ending (it found the queue empty, cleared
        // the flag and returns) when the next starts: two at most, never one per session.
        // One thread per extension; the count is the process's, and other suites' extensions
        // deliver meanwhile (a full run saw 3): a thread per delivery would show hundreds.
        #expect(peak <= 8, "\(peak) delivery threads at once")
        #expect(await rig.fake.logged("info: fake stderr: answered 3000"), "\(rig.fake.logLines.suffix(5))")
        #expect(rig.fake.logLines.filter { $0.contains("events not answered") }.isEmpty)
        #expect(rig.fake.host.status.launches == 1)
    }

    @Test("a request sent by the completion of one that timed out times out on time too (its deadline wakes the reader)")
    func requestSentAsAnotherTimesOut() async throws {
        let clock = TestExtensionClock()
        let fake = try FakeExtension(script: "hangs.sh", limits: #"{"requestSeconds": 1, "idleExitSeconds": 60}"#, debug: true, clock: clock)
        defer { fake.close() }
        #expect(await timingOut(fake, clock) == .timedOut(seconds: 1))
        let connection = try #require(fake.host.state.withLock { $0.connection })
        let second = Latch<Result<JSONValue, ExtensionError>>()
        // The first completion runs on the reader thread as it expires requests.
        _ = connection.send("timeline", params: nil) { _ in
            _ = connection.send("timeline", params: nil) { result in second.fulfil(result) }
        }
        #expect(await fake.sent("timeline", count: 2))
        clock.advance(by: 1)
        // Sent as the first expires, its deadline a second later is what the reader waits for next.
        #expect(await fake.sent("timeline", count: 3))
        #expect(await clock.waiter(at: 3), "asked: \(clock.asked)")
        clock.advance(by: 1)
        // The reader expires it as it sees the clock move: waited for on the real clock, bounded.
        let result = second.wait(until: SystemExtensionClock().now + 5 * TestTimeScale.factor, clock: SystemExtensionClock())
        #expect(result.map { "\($0)" } == "failure(timed out after 1 s)")
    }

    @Test("a delivery that times out holds those queued behind it too, at once, for the next launch")
    func timedOutDeliveryHoldsTheQueue() async throws {
        let clock = TestExtensionClock()
        let fake = try FakeExtension(script: "hangs.sh", limits: #"{"requestSeconds": 1}"#, debug: true, clock: clock)
        defer { fake.close() }
        let delivered = Mutex(0)
        for index in 0..<5 {
            let event = RPCMessage.object([("task", .integer(index)), ("status", .string("downloaded"))])
            fake.host.startDelivery(SessionDelivery(identifier: "s\(index)", events: [event], files: [],
                                                    completion: { delivered.withLock { $0 += 1 } }))
        }
        // One timeout (1 s), not five in a row.
        #expect(await fake.sent("sessionEvents"))
        clock.advance(by: 1)
        #expect(await fake.logged { $0.hasPrefix("error: fake: session s0 events not answered") })
        #expect(clock.elapsed == 1)
        #expect(fake.host.state.withLock { $0.held.map(\.identifier) } == ["s0", "s1", "s2", "s3", "s4"])
        #expect(fake.logLines.contains("error: fake: sessionEvents of session s0 timed out after 1 s"), "\(fake.logLines)")
        #expect(fake.logLines.contains("error: fake: session s0 events not answered (timed out after 1 s); delivered again on its next launch, with 4 more queued behind them"),
                "\(fake.logLines)")
        #expect(delivered.withLock { $0 } == 0)
        #expect(await eventually { deliveryThreads() == 0 })
    }

    @Test("held session events go again to a process that answers once they have waited 30 s, not only at its next launch (an extension kept busy never idle-exits)")
    func heldEventsRetriedOnTheLiveProcess() async throws {
        let fake = try FakeExtension(script: "answers.sh")
        defer { fake.close() }
        _ = try await fake.timeline()
        let event = RPCMessage.object([("task", .integer(1)), ("status", .string("downloaded"))])
        let delivery = SessionDelivery(identifier: "board", events: [event], files: [], completion: {})
        // Held 5 s ago: a request that succeeds leaves it held.
        fake.host.state.withLock { state in
            state.held = [delivery]
            state.heldSince = monotonicNow() - 5
        }
        _ = try await fake.timeline()
        #expect(fake.host.state.withLock { $0.held.count } == 1)
        // Held 31 s ago: the next success sends it again (answers.sh refuses it: held anew).
        fake.host.state.withLock { $0.heldSince = monotonicNow() - 31 }
        _ = try await fake.timeline()
        #expect(await eventually { fake.logLines.contains { $0.contains("session board events not answered") } }, "\(fake.logLines)")
        #expect(fake.host.state.withLock { state in state.held.count == 1 && (state.heldSince ?? 0) > monotonicNow() - 10 })
        #expect(fake.host.status.launches == 1)
    }

    @Test("held session events go again once due when a later delivery is answered, as when a panel's request is: both kinds of request settle their answer in one place")
    func heldEventsRetriedAfterADelivery() async throws {
        let fake = try FakeExtension(script: "answers-events.sh")
        defer { fake.close() }
        let delivered = Mutex<[String]>([])
        func delivery(_ identifier: String) -> SessionDelivery {
            let event = RPCMessage.object([("task", .integer(1)), ("status", .string("downloaded"))])
            return SessionDelivery(identifier: identifier, events: [event], files: [],
                                   completion: { delivered.withLock { $0.append(identifier) } })
        }
        // Running (launched by a first delivery): a launch sends held events anyway.
        fake.host.startDelivery(delivery("first"))
        #expect(await eventually { delivered.withLock { $0 } == ["first"] })
        fake.host.state.withLock { state in
            state.held = [delivery("held")]
            state.heldSince = monotonicNow() - 31
        }
        fake.host.startDelivery(delivery("next"))
        #expect(await eventually { delivered.withLock { $0 } == ["first", "next", "held"] }, "\(delivered.withLock { $0 })")
        #expect(fake.host.state.withLock { $0.held.isEmpty })
        #expect(fake.host.status.launches == 1)
    }

    /// Sends a timeline request (the fake with `debug`) and lets it time out in simulated time:
    /// waits until it is pending, then moves the clock on by its `requestSeconds` (1 s).
    private func timingOut(_ fake: FakeExtension, _ clock: TestExtensionClock, userInitiated: Bool = false) async -> ExtensionError? {
        let sent = fake.logLines.filter { $0.hasPrefix("debug: fake → {") && $0.contains(#""method":"timeline""#) }.count
        let request = Task(executorPreference: OwnThreads.extensionTasks) { () async -> ExtensionError? in
            do throws(ExtensionError) { _ = try await fake.timeline(userInitiated: userInitiated) } catch { return error }
            return nil
        }
        // Pending (its deadline set) once its line is logged; the reader notices the clock move.
        guard await fake.sent("timeline", count: sent + 1) else {
            request.cancel()
            return await request.value
        }
        clock.advance(by: 1)
        return await request.value
    }

    /// Bytes waiting in the pipe whose write end is `descriptor`.
    private func queuedBytes(_ descriptor: Int32) -> Int {
        var count: Int32 = 0
        guard ioctl(descriptor, UInt(FIONREAD), &count) == 0 else { return 0 }
        return Int(count)
    }

    /// Threads of this process named `wh-ext-deliver`.
    private func deliveryThreads() -> Int {
        var count = 0
        guard let directory = opendir("/proc/self/task") else { return 0 }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard tid.first?.isNumber == true,
                  let name = try? FileContents.text(at: "/proc/self/task/\(tid)/comm"), name == "wh-ext-deliver\n" else { continue }
            count += 1
        }
        return count
    }
}
