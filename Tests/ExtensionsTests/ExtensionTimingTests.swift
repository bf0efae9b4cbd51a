#if canImport(Glibc)
import Glibc
#endif
@testable import Extensions
import HostProcesses
import JSONTree
import Testing
import WidgetCore
import WidgetTestSupport

/// The host's timeouts, idle exit and backoffs in simulated time (`TestExtensionClock`): real
/// processes, but every wait on the clock ends when the test advances it, never on its own.
/// The test waits for the event (a thread waiting for the moment) before it moves time.
@Suite("Extension timing in simulated time", .serialized, .onOwnThreads(.awaitingExtensions))
struct ExtensionTimingTests {
    @Test("a request times out at requestSeconds on the host's clock: 300 simulated seconds, no real wait")
    func requestTimeout() async throws {
        let clock = TestExtensionClock()
        let fake = try FakeExtension(script: "hangs.sh", limits: #"{"requestSeconds": 300, "idleExitSeconds": 86400}"#,
                                     debug: true, clock: clock)
        defer { fake.close() }
        let started = ContinuousClock.now
        let request = Task(executorPreference: OwnThreads.extensionTasks) { () async throws(ExtensionError) -> JSONValueSummary in try await fake.timeline() }
        // The request is pending (its line logged as it is sent), and the reader waits for its deadline.
        #expect(await fake.sent("timeline"))
        #expect(await clock.waiter(at: 300), "asked: \(clock.asked)")
        clock.advance(by: 299.5)
        #expect(fake.host.status.isRunning)
        clock.advance(by: 0.5)
        await #expect(throws: ExtensionError.timedOut(seconds: 300)) { try await request.value }
        // A real wait would be 300 s; half of it leaves room for a loaded run's slow launch.
        #expect(ContinuousClock.now - started < .seconds(150), "simulated, not real, seconds")
        #expect(fake.logLines.contains("error: fake: timeline for panel#1 timed out after 300 s"), "\(fake.logLines)")
        #expect(fake.host.status.isRunning && fake.host.status.crashesInARow == 0)
    }

    @Test("idle exit at idleExitSeconds on the host's clock, not a moment before; the next request relaunches")
    func idleExit() async throws {
        let clock = TestExtensionClock()
        let fake = try FakeExtension(script: "answers.sh", limits: #"{"requestSeconds": 2, "idleExitSeconds": 600}"#, clock: clock)
        defer { fake.close() }
        _ = try await fake.timeline()
        let pid = try #require(fake.host.status.pid)
        #expect(await clock.waiter(at: 600), "asked: \(clock.asked)")
        clock.advance(by: 599.5)
        #expect(fake.host.status.isRunning, "not idle yet: the reader's wake-up is at 600 s")
        clock.advance(by: 0.5)
        // After detaching, the reader waits (2 s on the clock at most) for the extension's EOF.
        #expect(await clock.waiter(at: 602), "asked: \(clock.asked)")
        #expect(!fake.host.status.isRunning)
        #expect(await fake.exit(of: pid, within: 10) == .exited(0))
        #expect(fake.logLines.contains("info: fake: idle for 600 s; shutting down"))
        #expect(fake.host.status.crashesInARow == 0)
        #expect(try await fake.timeline().text.contains("launch 2"))
    }

    @Test("crash backoff on the host's clock: 1, 2, 4, 8 s between launches, then the host gives up")
    func crashBackoff() async throws {
        let clock = TestExtensionClock()
        let fake = try FakeExtension(script: "crashes-on-start.sh", clock: clock)
        defer { fake.close() }
        for (launch, backoff) in [(1, 1), (2, 2), (3, 4), (4, 8)] {
            await #expect(throws: ExtensionError.stopped("exited")) { try await fake.timeline() }
            #expect(fake.host.status.launches == launch && fake.host.status.crashesInARow == launch)
            #expect(fake.logLines.contains("error: fake: exited; relaunch in \(backoff) s at the earliest"), "\(fake.logLines)")
            await #expect(throws: ExtensionError.restarting(reason: "exited", inSeconds: backoff)) { try await fake.timeline() }
            clock.advance(by: Double(backoff) - 0.5)
            await #expect(throws: ExtensionError.restarting(reason: "exited", inSeconds: 1)) { try await fake.timeline() }
            #expect(fake.host.status.launches == launch, "no launch within the backoff")
            clock.advance(by: 0.5)
        }
        await #expect(throws: ExtensionError.failed("exited")) { try await fake.timeline() }
        #expect(fake.host.status.launches == 5 && fake.host.status.isFailed)
    }

    @Test("a session delivery waits out the backoff on the host's clock, relaunches, and a stop ends its wait (the events held)")
    func deliveryBackoff() async throws {
        let clock = TestExtensionClock()
        // requestSeconds 10: no request deadline falls on a moment the test waits for.
        let fake = try FakeExtension(script: "crashes-on-start.sh", limits: #"{"requestSeconds": 10}"#, clock: clock)
        defer { fake.close() }
        await #expect(throws: ExtensionError.stopped("exited")) { try await fake.timeline() }
        let delivered = Latch<Bool>()
        fake.host.startDelivery(SessionDelivery(identifier: "board", events: [], files: []) { delivered.fulfil(true) })
        // The delivery thread waits out the first backoff (1 s)…
        #expect(await clock.waiter(at: 1), "asked: \(clock.asked)")
        #expect(fake.host.status.launches == 1)
        clock.advance(by: 1)
        // …relaunches, the extension crashes again, and it waits out the second (2 s more).
        #expect(await clock.waiter(at: 3), "asked: \(clock.asked)")
        #expect(fake.host.status.launches == 2)
        fake.host.stop()
        // Logged once the events are held.
        #expect(await fake.logged { $0.hasPrefix("error: fake: session board events not answered") }, "\(fake.logLines)")
        #expect(fake.host.unansweredEvents == .restarting(reason: "exited", inSeconds: 2))
        #expect(fake.host.status.launches == 2, "\(fake.host.status)")
        #expect(clock.elapsed == 1)
        #expect(delivered.wait(until: 0, clock: SystemExtensionClock()) == nil, "held, not acknowledged")
    }

    @Test("R during a delivery's backoff wait ends it at once: the delivery relaunches without the clock moving")
    func deliveryBackoffReset() async throws {
        let clock = TestExtensionClock()
        let fake = try FakeExtension(script: "crashes-on-start.sh", limits: #"{"requestSeconds": 10}"#, clock: clock)
        defer { fake.close() }
        await #expect(throws: ExtensionError.stopped("exited")) { try await fake.timeline() }
        fake.host.startDelivery(SessionDelivery(identifier: "board", events: [], files: []) {})
        #expect(await clock.waiter(at: 1), "asked: \(clock.asked)")
        fake.runtime.resetFailures()
        // Relaunched at once for its events (and crashing again), with no time passed.
        #expect(await fake.logged { $0.hasPrefix("info: fake: started (") && $0.hasSuffix(", launch 2)") }, "\(fake.logLines)")
        #expect(fake.host.status.launches == 2 && clock.elapsed == 0)
        fake.host.stop()
        #expect(await fake.logged { $0.hasPrefix("error: fake: session board events not answered") })
    }
}
