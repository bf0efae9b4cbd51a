#if canImport(Glibc)
import Glibc
#endif
@testable import Extensions
import HostProcesses
import Testing
import WidgetCore
import WidgetTestSupport

/// Real processes (sh scripts in Fixtures/) behind one `ExtensionHost` each. Waits are on
/// conditions with deadlines; the only timeouts are the extensions' own (1–2 s).
@Suite("Extension processes", .serialized, .onOwnThreads(.awaitingExtensions))
struct ExtensionHostTests {
    @Test("a well-behaved extension: initialize, then timelines; one process serves every panel")
    func answers() async throws {
        let fake = try FakeExtension(script: "answers.sh")
        defer { fake.close() }
        let first = try await fake.timeline(instance: "panel#1")
        #expect(first.text.contains(#""text":"hello panel#1 launch 1""#))
        let second = try await fake.timeline(instance: "panel#2")
        #expect(second.text.contains(#""text":"hello panel#2 launch 1""#))
        #expect(fake.host.status.launches == 1)
        #expect(fake.host.status.isRunning)
        // Its log notifications and stderr reach the host log.
        #expect(await fake.logged("info: fake: timeline for panel#2"))
        #expect(fake.logLines.contains("info: fake stderr: fake extension started (launch 1)"))
    }

    @Test("the process gets the manifest's directory, a minimal environment and its data directory")
    func environment() async throws {
        let fake = try FakeExtension(script: "answers.sh")
        defer { fake.close() }
        _ = try await fake.timeline()
        let launches = try FileContents.text(at: fake.stateDirectory + "/extensions/fake/launches")
        #expect(launches == "1\n")
        let pid = try #require(fake.host.status.pid)
        let environ = try FileContents.text(at: "/proc/\(pid)/environ").split(separator: "\0").map(String.init).filter { !$0.hasPrefix("PWD=") }.sorted()
        #expect(environ == ["PATH=/usr/bin:/bin", "WIDGETHOST_EXTENSION_DATA=\(fake.stateDirectory)/extensions/fake"])
        let cwd = String(cString: realpath("/proc/\(pid)/cwd", nil))
        #expect(cwd == String(cString: realpath(fake.manifest.directory, nil)))
        #expect(getpgid(pid) == pid)  // a process group of its own
        let limits = try FileContents.text(at: "/proc/\(pid)/limits")
        #expect(limits.contains("Max cpu time              60 "))
        #expect(limits.contains("Max address space         536870912 "))
    }

    @Test("a hung extension: the request times out after requestSeconds, the host goes on")
    func hangs() async throws {
        let fake = try FakeExtension(script: "hangs.sh", limits: #"{"requestSeconds": 1}"#)
        defer { fake.close() }
        let started = ContinuousClock.now
        await #expect(throws: ExtensionError.timedOut(seconds: 1)) { try await fake.timeline() }
        #expect(ContinuousClock.now - started < .seconds(3))
        #expect(ExtensionError.timedOut(seconds: 1).description == "timed out after 1 s")
        // Another extension is not held up by it.
        let other = try FakeExtension(script: "answers.sh", name: "other")
        defer { other.close() }
        #expect(try await other.timeline().text.contains("hello"))
        #expect(fake.host.status.isRunning && fake.host.status.crashesInARow == 0)
    }

    @Test("crash on start: the panel gets the reason, the relaunch waits for the backoff")
    func crashOnStart() async throws {
        let fake = try FakeExtension(script: "crashes-on-start.sh")
        defer { fake.close() }
        await #expect(throws: ExtensionError.stopped("exited")) { try await fake.timeline() }
        #expect(fake.host.status.crashesInARow == 1 && !fake.host.status.isRunning)
        // Within the backoff no process is started.
        await #expect(throws: ExtensionError.restarting(reason: "exited", inSeconds: 1)) { try await fake.timeline() }
        #expect(fake.host.status.launches == 1)
        #expect(await fake.logged("info: fake stderr: cannot start: missing configuration"))
    }

    @Test("five crashes in a row: the fifth request already says the host gave up; failed until a user reload (r, R) or resetFailures")
    func failedAfterFiveCrashes() async throws {
        let fake = try FakeExtension(script: "crashes-on-start.sh")
        defer { fake.close() }
        for _ in 0..<4 {
            // A user reload skips the backoff, so the test need not wait it out.
            await #expect(throws: ExtensionError.stopped("exited")) { try await fake.timeline(userInitiated: true) }
        }
        await #expect(throws: ExtensionError.failed("exited")) { try await fake.timeline(userInitiated: true) }
        #expect(fake.host.status.isFailed && fake.host.status.launches == 5)
        await #expect(throws: ExtensionError.failed("exited")) { try await fake.timeline() }
        #expect(fake.host.status.launches == 5)
        #expect(ExtensionError.failed("exited").description == "the host gave up after 5 crashes in a row (exited); press r to try again")
        #expect(await fake.logged { $0.hasSuffix("the host gave up: not relaunched until r on one of its panels, R, or a config reload") })
        // A user reload of one panel (r) tries again.
        await #expect(throws: ExtensionError.stopped("exited")) { try await fake.timeline(userInitiated: true) }
        #expect(fake.host.status.launches == 6 && !fake.host.status.isFailed && fake.host.status.crashesInARow == 1)
        for _ in 0..<4 { _ = try? await fake.timeline(userInitiated: true) }
        #expect(fake.host.status.isFailed)
        fake.runtime.resetFailures()
        await #expect(throws: ExtensionError.stopped("exited")) { try await fake.timeline() }
        #expect(fake.host.status.launches == 11 && !fake.host.status.isFailed)
    }

    @Test("crash in the middle of a request: that request fails with the reason, the next one relaunches")
    func crashMidRequest() async throws {
        let fake = try FakeExtension(script: "crashes-mid-request.sh")
        defer { fake.close() }
        await #expect(throws: ExtensionError.stopped("exited")) { try await fake.timeline() }
        #expect(fake.host.status.crashesInARow == 1 && fake.host.status.protocolErrors == 0)
        await #expect(throws: ExtensionError.stopped("exited")) { try await fake.timeline(userInitiated: true) }
        #expect(fake.host.status.launches == 2)
    }

    @Test("past its memory limit the process dies; the panel says it stopped, the host relaunches it later")
    func memoryLimit() async throws {
        let fake = try FakeExtension(script: "eats-memory.sh", limits: #"{"requestSeconds": 10, "memoryMiB": 32}"#)
        defer { fake.close() }
        let started = ContinuousClock.now
        await #expect(throws: ExtensionError.stopped("exited")) { try await fake.timeline() }
        #expect(ContinuousClock.now - started < .seconds(8))
        #expect(fake.host.status.crashesInARow == 1)
        #expect(await fake.logged { $0.hasPrefix("info: fake stderr: awk") }, "\(fake.logLines)")
    }

    @Test("reloadTimelines goes through the WidgetCenter (one kind, or all the extension's); log reaches the log sanitised; --debug logs every message")
    func notifications() async throws {
        let fake = try FakeExtension(script: "notifies.sh", debug: true)
        defer { fake.close() }
        let center = WidgetCenter()
        fake.runtime.setCenter(center)
        _ = try await fake.timeline()
        // The log line comes after both reload notifications: they have been handled by then.
        #expect(await fake.logged("error: fake: bad  [31mnews"), "\(fake.logLines)")
        #expect(center.takeRequests() == [.kind("fake/panel")])  // both, coalesced by the center
        #expect(fake.logLines.contains { $0.hasPrefix("debug: fake → {\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\"") })
        #expect(fake.logLines.contains("debug: fake ← {\"jsonrpc\":\"2.0\",\"method\":\"reloadTimelines\",\"params\":{\"kind\":\"panel\"}}"))
        // A method the host does not have is a protocol error.
        let error = await #expect(throws: ExtensionError.self) { try await fake.timeline() }
        #expect(error?.description == "the extension stopped: called unknown method 'format'")
        #expect(fake.host.status.protocolErrors == 1)
    }

    @Test("100,000 log lines through the reader thread: all logged, the reader does not overflow its stack")
    func manyLogLines() async throws {
        // Reading the log sink used to wrap it in one more thunk per line (a closure read out of a
        // Mutex with `withLock { $0 }` is stored back reabstracted): the reader thread's stack
        // overflowed at about 3,300 lines.
        let fake = try FakeExtension(script: "logs-a-lot.sh", limits: #"{"requestSeconds": 60}"#)
        defer { fake.close() }
        _ = try await fake.timeline()
        #expect(await eventually(within: 30) { fake.logLines.count >= 100_000 }, "\(fake.logLines.count) lines")
        #expect(fake.logLines.last == "info: fake: line 100000")
    }

    @Test("garbage on stdout is a protocol error: logged, counted, the process killed")
    func garbage() async throws {
        let fake = try FakeExtension(script: "garbage.sh")
        defer { fake.close() }
        let error = await #expect(throws: ExtensionError.self) { try await fake.timeline() }
        #expect(error?.description.hasPrefix("the extension stopped: sent a line that is not JSON") == true)
        #expect(fake.host.status.protocolErrors == 1 && !fake.host.status.isRunning)
        #expect(await fake.logged { $0.hasPrefix("error: fake: sent a line that is not JSON") && $0.contains("(protocol error)") })
        // The line is quoted, made printable, without --debug (issue 22, item 13).
        #expect(fake.logLines.contains { $0.hasPrefix("error: fake: sent a line that is not JSON")
                    && $0.contains(#"): "Traceback (most recent call last):  [31moops" (protocol error)"#) }, "\(fake.logLines)")
        // The escape sequence it printed never reaches the log.
        #expect(!fake.logLines.contains { $0.contains("\u{1B}") })
    }

    @Test("a line over 1 MiB is a protocol error; the host reads no more than that")
    func longLine() async throws {
        let fake = try FakeExtension(script: "long-line.sh", limits: #"{"requestSeconds": 10}"#)
        defer { fake.close() }
        let started = ContinuousClock.now
        await #expect(throws: ExtensionError.stopped("sent a line longer than 1 MiB")) { try await fake.timeline() }
        #expect(ContinuousClock.now - started < .seconds(8))  // not the request timeout: at once
        #expect(fake.host.status.protocolErrors == 1)
    }

    @Test("an answer to an id the host never used is a protocol error")
    func unknownID() async throws {
        let fake = try FakeExtension(script: "unknown-id.sh")
        defer { fake.close() }
        let error = await #expect(throws: ExtensionError.self) { try await fake.timeline() }
        #expect(error.map { "\($0)" }?.contains("answered request") == true, "\(String(describing: error))")
        #expect(fake.host.status.protocolErrors == 1)
    }

    @Test("a late answer to a request that timed out is dropped, never taken for the next request's")
    func lateAnswer() async throws {
        let fake = try FakeExtension(script: "late-answer.sh", limits: #"{"requestSeconds": 2}"#)
        defer { fake.close() }
        await #expect(throws: ExtensionError.timedOut(seconds: 2)) { try await fake.timeline() }
        // The second request is pending when the late answer to the first arrives (at 3 s).
        let next = try await fake.timeline()
        #expect(next.text.contains(#""text":"fresh""#))
        #expect(fake.host.status.protocolErrors == 0 && fake.host.status.launches == 1)
    }

    @Test("idle exit: after idleExitSeconds with nothing pending it is shut down; the next request relaunches it")
    func idleExit() async throws {
        let fake = try FakeExtension(script: "answers.sh", limits: #"{"requestSeconds": 2, "idleExitSeconds": 1}"#, debug: true)
        defer { fake.close() }
        _ = try await fake.timeline()
        let pid = try #require(fake.host.status.pid)
        // Logged once it is detached from the host.
        #expect(await fake.logged("info: fake: idle for 1 s; shutting down", within: 5))
        #expect(!fake.host.status.isRunning)
        #expect(await fake.exit(of: pid, within: 5) == .exited(0))
        // --debug logs the host's shutdown request like any other message it sends.
        #expect(fake.logLines.contains { $0.hasPrefix("debug: fake → {\"jsonrpc\":\"2.0\",\"id\":") && $0.hasSuffix("\"method\":\"shutdown\"}") },
                "\(fake.logLines)")
        #expect(fake.host.status.crashesInARow == 0)
        let again = try await fake.timeline()
        #expect(again.text.contains("launch 2"))
    }

    /// How the host stops an extension, for `ignoresSIGTERM`.
    enum Stop: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case idleExit = "its idle exit", configReload = "a config reload (stop)", quit = "the host quitting (stopAll)"
        case quitDuringIdleExit = "the host quitting while its idle exit waits for it"
        var testDescription: String { rawValue }
        /// What the host logs when it sends SIGKILL.
        var killLine: String {
            switch self {
            case .idleExit: "info: fake: still running after SIGTERM; SIGKILL"
            case .configReload: "info: fake: still running 2 s after SIGTERM; SIGKILL"
            case .quit, .quitDuringIdleExit: "info: fake: still running 0.2 s after SIGTERM; SIGKILL"
            }
        }
    }

    @Test("an extension that ignores shutdown, EOF and SIGTERM gets SIGKILL to its group: none outlives", arguments: Stop.allCases)
    func ignoresSIGTERM(_ stop: Stop) async throws {
        let idle = stop == .idleExit || stop == .quitDuringIdleExit ? 1 : 600
        let fake = try FakeExtension(script: "ignores-shutdown.sh", limits: #"{"requestSeconds": 2, "idleExitSeconds": \#(idle)}"#)
        defer { fake.close() }
        _ = try await fake.timeline()
        let pid = try #require(fake.host.status.pid)
        switch stop {
        case .idleExit: break
        case .configReload: fake.host.stop()
        case .quit, .quitDuringIdleExit:
            if stop == .quitDuringIdleExit {
                #expect(await fake.logged("info: fake: idle for 1 s; shutting down", within: 5), "detached at its idle exit")
            }
            let started = ContinuousClock.now
            fake.runtime.stopAll(graceSeconds: 0.2)
            #expect(ContinuousClock.now - started < .seconds(2), "the host waits the grace, not more")
        }
        #expect(await fake.exit(of: pid, within: 10) == .signalled(SIGKILL))
        #expect(fake.logLines.contains(stop.killLine), "\(fake.logLines)")
    }

    @Test("a request pending past idleExitSeconds: the reader tries the idle exit again a second later, it does not spin")
    func idleExitRefusedDoesNotSpin() async throws {
        let fake = try FakeExtension(script: "hangs.sh", limits: #"{"requestSeconds": 3, "idleExitSeconds": 1}"#, debug: true)
        defer { fake.close() }
        let request = Task { () async throws(ExtensionError) -> JSONValueSummary in try await fake.timeline() }
        // Its reader logged the answer to `initialize`: it runs (and has named itself).
        #expect(await fake.logged(within: 2) { $0.hasPrefix("debug: fake ← ") })
        let before = readerThreadTicks()
        #expect(!before.isEmpty)
        await #expect(throws: ExtensionError.timedOut(seconds: 3)) { try await request.value }
        let after = readerThreadTicks()
        // CPU of the reader threads alive throughout, in clock ticks (1/100 s): a reader polling
        // with a zero timeout for the 2 s past the idle deadline would take one core, ~200.
        let used = after.reduce(0) { sum, thread in sum + thread.value - (before[thread.key] ?? thread.value) }
        #expect(used < 30, "reader threads used \(used) ticks")
        #expect(fake.host.status.protocolErrors == 0)
    }

    /// Clock ticks (user + system) of each `wh-ext-read` thread of this process, by thread id.
    private func readerThreadTicks() -> [String: Int] {
        var ticks: [String: Int] = [:]
        guard let directory = opendir("/proc/self/task") else { return ticks }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let tid = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard tid.first?.isNumber == true,
                  let name = try? FileContents.text(at: "/proc/self/task/\(tid)/comm"), name == "wh-ext-read\n",
                  let stat = try? FileContents.text(at: "/proc/self/task/\(tid)/stat"),
                  let close = stat.lastIndex(of: ")") else { continue }
            // After "(comm)": state is field 3; utime and stime are fields 14 and 15.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
            ticks[tid] = user + system
        }
        return ticks
    }
}
