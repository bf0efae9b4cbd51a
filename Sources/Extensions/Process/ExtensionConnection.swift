#if canImport(Glibc)
import Glibc
#endif
import HostProcesses
import JSONTree
import Synchronization

/// One running extension process (one generation): its channel and the requests in flight.
///
/// The descriptors are the connection's own (duplicated from the `SpawnedProcess`, whose
/// copies are closed at once), so each is closed by exactly one owner: stdin under the write
/// lock, stdout by the reader thread, stderr by the stderr thread.
///
/// Threads: `wh-ext-read` blocks in `poll` on stdout, with a timeout only for the idle exit
/// (one wake-up when `idleExitSeconds` have passed with nothing pending; refused, one more a
/// second later); `wh-ext-err` blocks in `read` on stderr. Both end with the process; a stopped
/// extension costs no thread and no wake-up. `stop()` adds `wh-ext-stop` for 2 s (the SIGKILL). Requests block their caller (a provider thread) on a `Latch` until the answer
/// or `requestSeconds`.
final class ExtensionConnection: Sendable {
    /// What ended a connection, for the host.
    enum End: Sendable {
        /// Asked to (idle exit, the host stopping): no crash.
        case expected
        /// A crash, a limit, or a protocol error (the message says which).
        case crash(String, protocolError: Bool)
    }

    /// Everything the connection calls back into its host with.
    struct Callbacks: Sendable {
        var ended: @Sendable (ExtensionConnection, End) -> Void
        /// With the host's lock held: `markClosingIfIdle()`, and if it agrees, detaches the
        /// connection from the host (new requests launch a new process). Returns the answer.
        var detachIfIdle: @Sendable (ExtensionConnection) -> Bool
        /// A request or notification from the extension; returns the answer line for a
        /// request (nil: none), or throws a protocol error.
        var incoming: @Sendable (_ method: String, _ params: JSONValue?, _ id: JSONValue?) throws(ProtocolViolation) -> String?
        var log: @Sendable (ExtensionLogLevel, String) -> Void
        var debugMessages: Bool
    }

    struct ProtocolViolation: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    struct Pending {
        let method: String
        let complete: @Sendable (Result<JSONValue, ExtensionError>) -> Void
    }

    struct State {
        var pending: [Int: Pending] = [:]
        var nextID = 1
        var lastActivity: Double
        /// Being shut down (idle) or ended: takes no new request.
        var closing = false
        var ended = false
        /// Ids whose caller gave up (timed out, cancelled): a late answer is dropped quietly.
        var abandoned: [Int] = []
        /// The host asked it to stop: its end is no crash.
        var stopRequested = false
        /// Why the host ended it (a bad `initialize` answer), overriding what the reader saw.
        var abortReason: String?
        /// Why it ended, once it has.
        var endReason: String?
    }

    /// The longest line accepted from an extension (bytes, without the newline).
    static let maximumLineBytes = 1 << 20
    /// Seconds each step of a shutdown waits (answer, then EOF after SIGTERM).
    static let shutdownStepSeconds = 2.0
    /// Stderr lines logged per process; more are read and dropped.
    static let maximumStderrLines = 200

    let process: SpawnedProcess
    let generation: UInt64
    let limits: ExtensionLimits
    let name: String
    // The connection's own, shared with its reading half (ExtensionConnection+Reading.swift).
    let callbacks: Callbacks
    private let input: Int32
    let output: Int32
    let errors: Int32
    let state: Mutex<State>
    /// Fulfilled when the connection has ended (`finish`).
    private let endLatch = Latch<Bool>()
    /// Held while writing a message (messages never interleave) and while closing stdin.
    private let writer = Mutex<Bool>(false)  // true once stdin is closed

    /// Takes over `process`'s pipes and starts the reader threads.
    init(process: SpawnedProcess, generation: UInt64, name: String, limits: ExtensionLimits, callbacks: Callbacks) {
        self.process = process
        self.generation = generation
        self.name = name
        self.limits = limits
        self.callbacks = callbacks
        input = fcntl(process.standardInput ?? -1, F_DUPFD_CLOEXEC, 3)
        output = fcntl(process.standardOutput ?? -1, F_DUPFD_CLOEXEC, 3)
        errors = fcntl(process.standardError ?? -1, F_DUPFD_CLOEXEC, 3)
        process.closePipes()
        if input >= 0 { _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK) }
        state = Mutex(State(lastActivity: monotonicNow()))
    }

    /// Starts the reader threads; false (and the process killed) when no thread can start.
    func start() -> Bool {
        guard DetachedThread.start(name: "wh-ext-read", stackSize: DetachedThread.parsingStackSize, { [self] in readLoop() }) else {
            process.signalGroup(SIGKILL)
            closeInput()
            close(output)
            close(errors)
            return false
        }
        if !DetachedThread.start(name: "wh-ext-err", { [self] in stderrLoop() }) { close(errors) }
        return true
    }

    // MARK: Requests

    /// Sends a request and registers `complete` for its answer. Returns the id, or nil when
    /// the connection is shutting down for being idle (the caller relaunches). A connection
    /// that has ended fails the request at once with the reason.
    func send(_ method: String, params: JSONValue?, complete: @escaping @Sendable (Result<JSONValue, ExtensionError>) -> Void) -> Int? {
        enum Admission { case idle, ended(String), accepted(Int) }
        let admission: Admission = state.withLock { state in
            if state.ended { return .ended(state.endReason ?? "exited") }
            if state.closing, state.abortReason == nil, !state.stopRequested { return .idle }
            let id = state.nextID
            state.nextID += 1
            state.pending[id] = Pending(method: method, complete: complete)
            state.lastActivity = monotonicNow()
            return .accepted(id)
        }
        let id: Int
        switch admission {
        case .idle: return nil
        case .ended(let reason):
            complete(.failure(.stopped(reason)))
            return 0
        case .accepted(let accepted): id = accepted
        }
        // A write that fails leaves the request pending: the process's end (EOF) or the
        // caller's deadline answers it, with the real reason.
        post(RPCMessage.request(id: id, method: method, params: params), deadline: monotonicNow() + Double(limits.requestSeconds))
        return id
    }

    /// Sends a request and waits for its answer (at most `requestSeconds`), blocking the
    /// calling thread (never the loop's): for deliveries on a thread of their own.
    ///
    /// - Returns: nil when the connection takes no more requests (relaunch and try again).
    func callBlocking(_ method: String, params: JSONValue?) -> Result<JSONValue, ExtensionError>? {
        let latch = Latch<Result<JSONValue, ExtensionError>>()
        let deadline = monotonicNow() + Double(limits.requestSeconds)
        guard let id = send(method, params: params, complete: { latch.fulfil($0) }) else { return nil }
        let answer = latch.wait(until: deadline)
        if let answer, case .success = answer { return answer }
        abandon(id)
        return answer ?? .failure(.timedOut(seconds: limits.requestSeconds))
    }

    /// Sends a request and waits for its answer (at most `requestSeconds`); cancelling the
    /// task ends the wait.
    ///
    /// - Returns: nil when the connection takes no more requests (relaunch and try again).
    func call(_ method: String, params: JSONValue?) async -> Result<JSONValue, ExtensionError>? {
        let latch = Latch<Result<JSONValue, ExtensionError>>()
        let deadline = monotonicNow() + Double(limits.requestSeconds)
        guard let id = send(method, params: params, complete: { latch.fulfil($0) }) else { return nil }
        let answer = await withTaskCancellationHandler {
            latch.wait(until: deadline)
        } onCancel: {
            latch.fulfil(.failure(.cancelled))
        }
        if let answer, case .success = answer { return answer }
        abandon(id)
        return answer ?? .failure(.timedOut(seconds: limits.requestSeconds))
    }

    /// Forgets request `id` (its caller gave up); a late answer is dropped without complaint.
    private func abandon(_ id: Int) {
        state.withLock { state in
            guard state.pending.removeValue(forKey: id) != nil else { return }
            state.abandoned.append(id)
            if state.abandoned.count > 256 { state.abandoned.removeFirst(128) }
            state.lastActivity = monotonicNow()
        }
    }

    /// Writes one message of the host's (a request or an answer) and, with `--debug`, logs it
    /// (`NAME → …`): every line the host sends goes through here.
    @discardableResult
    func post(_ line: String, deadline: Double) -> Bool {
        if callbacks.debugMessages { callbacks.log(.debug, "\(name) → \(RPCMessage.printable(String(line.dropLast()), limit: 2000))") }
        return write(line, deadline: deadline)
    }

    /// Writes one line to the extension's stdin, waiting for room until `deadline`.
    @discardableResult
    private func write(_ line: String, deadline: Double) -> Bool {
        writer.withLock { closed -> Bool in
            guard !closed, input >= 0 else { return false }
            var bytes = Array(line.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { Glibc.write(input, $0.baseAddress, $0.count) }
                if written > 0 {
                    bytes = bytes.dropFirst(written)
                    continue
                }
                if written < 0 && errno == EINTR { continue }
                guard written < 0 && errno == EAGAIN else { return false }
                let left = deadline - monotonicNow()
                guard left > 0 else { return false }
                var fds = pollfd(fd: input, events: Int16(POLLOUT), revents: 0)
                _ = poll(&fds, 1, Int32(min(left * 1000, 60_000).rounded(.up)))
            }
            return true
        }
    }

    /// Closes the extension's stdin (it should exit on EOF).
    func closeInput() {
        writer.withLock { closed in
            guard !closed else { return }
            closed = true
            if input >= 0 { close(input) }
        }
    }

    /// Stops taking requests and ends the process now (the host quitting, a config reload that
    /// removed or changed it): stdin closed and SIGTERM to the group, then SIGKILL to the group
    /// if it has not ended `shutdownStepSeconds` later (a thread of its own waits for that).
    func stop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopRequested = true }
            state.closing = true
            return !state.stopRequested && !state.ended
        }
        closeInput()
        process.signalGroup(SIGTERM)
        guard first else { return }
        let started = DetachedThread.start(name: "wh-ext-stop") { [self] in
            killUnlessEnded(by: monotonicNow() + Self.shutdownStepSeconds, after: "\(Int(Self.shutdownStepSeconds)) s")
        }
        // No thread to wait with: no grace either, rather than a process that may never end.
        if !started { process.signalGroup(SIGKILL) }
    }

    /// Waits until the process has ended or `deadline` (monotonic seconds) has passed; past it,
    /// SIGKILL to the group (logged: "still running `wait` after SIGTERM").
    func killUnlessEnded(by deadline: Double, after wait: String) {
        guard endLatch.wait(until: deadline) == nil else { return }
        callbacks.log(.info, "\(name): still running \(wait) after SIGTERM; SIGKILL")
        process.signalGroup(SIGKILL)
    }

    /// Marks the connection closing if nothing is pending and it has been idle for
    /// `idleExitSeconds`; the host calls it with its lock held (see `detachIfIdle`).
    func markClosingIfIdle() -> Bool {
        state.withLock { state in
            guard state.pending.isEmpty, !state.closing,
                  monotonicNow() >= state.lastActivity + Double(limits.idleExitSeconds) - 0.001 else { return false }
            state.closing = true
            return true
        }
    }

    /// Ends the process because of `reason` (the host found its answer unusable): a crash
    /// with that reason.
    func abort(_ reason: String) {
        state.withLock { state in
            if state.abortReason == nil { state.abortReason = reason }
            state.closing = true
        }
        process.signalGroup(SIGKILL)
    }

    /// The completion of request `id`, taken off the pending list: `.some(nil)` for a request
    /// given up on (a late answer, dropped), nil for an id that is not pending (a violation).
    func takePending(_ id: Int) -> (@Sendable (Result<JSONValue, ExtensionError>) -> Void)?? {
        state.withLock { state in
            state.lastActivity = monotonicNow()
            if let pending = state.pending.removeValue(forKey: id) { return .some(pending.complete) }
            return state.abandoned.contains(id) ? .some(nil) : nil
        }
    }

    /// Fails what is pending with the reason and tells the host, once.
    func finish(_ end: End) {
        var end = end
        let pending = state.withLock { state -> [Pending] in
            guard !state.ended else { return [] }
            state.ended = true
            state.closing = true
            if let reason = state.abortReason { end = .crash(reason, protocolError: true) }
            else if state.stopRequested { end = .expected }
            switch end {
            case .expected: state.endReason = "it was shut down"
            case .crash(let message, _): state.endReason = message
            }
            defer { state.pending.removeAll() }
            return Array(state.pending.values)
        }
        closeInput()
        let reason: String
        switch end {
        case .expected: reason = "it was shut down"
        case .crash(let message, _): reason = message
        }
        // The host records the crash (backoff, count) before any caller hears of it.
        callbacks.ended(self, end)
        for request in pending { request.complete(.failure(.stopped(reason))) }
        endLatch.fulfil(true)
    }

}
