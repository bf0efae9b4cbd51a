#if canImport(Glibc)
import Glibc
#endif
import CLinux
import ExtensionProtocol
import HostProcesses
import JSONTree
import Synchronization

/// One running extension process (one generation): its channel and the requests in flight.
///
/// The descriptors are the connection's own (duplicated from the `SpawnedProcess`, whose
/// copies are closed at once), so each is closed by exactly one owner: stdin by its `Outbox`,
/// stdout by the reader thread, stderr by the stderr thread.
///
/// Threads: `wh-ext-read` blocks in `poll` on stdout (and on stdin while the `Outbox` holds
/// bytes the pipe did not take, and on an eventfd that wakes it), with a timeout only for the earliest
/// request's deadline and the idle exit (one wake-up when `idleExitSeconds` have passed with
/// nothing pending; refused, one more a second later); `wh-ext-err` blocks in `read` on stderr.
/// Both end with the process; a stopped extension costs no thread and no wake-up. `stop()`
/// adds `wh-ext-stop` for 2 s (the SIGKILL).
///
/// Nothing waits on the extension while holding a thread of the host's: writes queue what the
/// pipe does not take; a request's `AnswerSlot` gets the answer, the extension's end, or the
/// timeout (`requestSeconds`, logged) from the reader thread; a provider's task awaits it
/// suspended, only a session delivery (on the extension's own delivery thread) blocks on it.
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
        /// What the log calls it: `timeline for today#1`.
        let label: String
        /// When it times out (on `clock`).
        let deadline: Double
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
        /// A request timed out and nothing has been answered since: it may be hung (`r`
        /// relaunches it, see `ExtensionHost`).
        var timedOut = false
        /// When the reader thread's `poll` times out next: a request with an earlier deadline
        /// wakes it.
        var readerWakesAt = Double.infinity
    }

    /// The longest line accepted from an extension (bytes, without the newline).
    static let maximumLineBytes = ExtensionProtocol.maximumLineBytes
    /// Seconds each step of a shutdown waits (answer, then EOF after SIGTERM).
    static let shutdownStepSeconds = 2.0
    /// Stderr lines logged per process; more are read and dropped.
    static let maximumStderrLines = 200

    let process: SpawnedProcess
    let generation: UInt64
    let limits: ExtensionLimits
    let name: String
    /// Times the deadlines, the idle exit and the shutdown steps (the host's).
    let clock: any ExtensionClock
    // The connection's own, shared with its reading half (ExtensionConnection+Reading.swift).
    let callbacks: Callbacks
    /// Stdin's write end, owned by `outbox` (kept here for tests to look at the pipe).
    let input: Int32
    let output: Int32
    let errors: Int32
    /// The reader thread's wake-up (an eventfd): a write wakes its `poll`.
    let wakeReader: Int32
    let state: Mutex<State>
    /// Fulfilled when the connection has ended (`finish`).
    private let endLatch = Latch<Bool>()
    /// Stdin and what waits to be written to it (messages never interleave).
    let outbox: Mutex<Outbox>

    /// Takes over `process`'s pipes.
    init(process: SpawnedProcess, generation: UInt64, name: String, limits: ExtensionLimits, clock: any ExtensionClock,
         callbacks: Callbacks) {
        self.process = process
        self.clock = clock
        self.generation = generation
        self.name = name
        self.limits = limits
        self.callbacks = callbacks
        input = fcntl(process.standardInput ?? -1, F_DUPFD_CLOEXEC, 3)
        output = fcntl(process.standardOutput ?? -1, F_DUPFD_CLOEXEC, 3)
        errors = fcntl(process.standardError ?? -1, F_DUPFD_CLOEXEC, 3)
        process.closePipes()
        if input >= 0 { _ = fcntl(input, F_SETFL, fcntl(input, F_GETFL) | O_NONBLOCK) }
        outbox = Mutex(Outbox(descriptor: input))
        wakeReader = wh_eventfd()
        state = Mutex(State(lastActivity: clock.now))
    }

    deinit {
        if wakeReader >= 0 { close(wakeReader) }
    }

    /// Starts the reader threads; false (and the process killed) when no thread can start.
    func start() -> Bool {
        guard wakeReader >= 0, DetachedThread.start(name: "wh-ext-read", stackSize: DetachedThread.parsingStackSize, { [self] in readLoop() }) else {
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
    ///
    /// Never waits: the message is queued (`Outbox`) and `complete` runs later on the reader
    /// thread, with the answer, the extension's end, or `.timedOut` at `requestSeconds`.
    func send(_ method: String, params: JSONValue?, complete: @escaping @Sendable (Result<JSONValue, ExtensionError>) -> Void) -> Int? {
        enum Admission { case idle, ended(String), accepted(Int, wake: Bool) }
        let label = Self.label(method, params)
        let admission: Admission = state.withLock { state in
            if state.ended { return .ended(state.endReason ?? "exited") }
            if state.closing, state.abortReason == nil, !state.stopRequested { return .idle }
            let id = state.nextID
            state.nextID += 1
            let now = clock.now
            let deadline = now + Double(limits.requestSeconds)
            state.pending[id] = Pending(label: label, deadline: deadline, complete: complete)
            state.lastActivity = now
            return .accepted(id, wake: deadline < state.readerWakesAt)
        }
        let id: Int
        switch admission {
        case .idle: return nil
        case .ended(let reason):
            complete(.failure(.stopped(reason)))
            return 0
        case .accepted(let accepted, let wake):
            id = accepted
            if wake { wakeReaderThread() }
        }
        // A write that is refused leaves the request pending: the process's end (EOF) or its
        // deadline answers it, with the real reason.
        post(RPCMessage.request(id: id, method: method, params: params))
        return id
    }

    /// `timeline for today#1`, `sessionEvents of session board`: the method, and the panel's
    /// instance or the session when the params name one.
    private static func label(_ method: String, _ params: JSONValue?) -> String {
        guard case .object(let object)? = params else { return method }
        if case .string(let instance)? = object["instance"] { return "\(method) for \(RPCMessage.printable(instance, limit: 60))" }
        if case .string(let session)? = object["identifier"] { return "\(method) of session \(RPCMessage.printable(session, limit: 60))" }
        return method
    }

    /// Sends a request; its answer comes in the slot returned — the answer, the extension's
    /// end, or `.timedOut` at `requestSeconds` (timed by the reader thread) —, which the caller
    /// awaits (a provider's task) or blocks on (a session delivery). A caller that gives up
    /// forgets the request here (`abandon`).
    ///
    /// - Returns: nil when the connection takes no more requests (relaunch and try again).
    func request(_ method: String, params: JSONValue?) -> AnswerSlot? {
        let slot = AnswerSlot(requestSeconds: limits.requestSeconds, clock: clock)
        guard let id = send(method, params: params, complete: { slot.fulfil($0) }) else { return nil }
        slot.sent { [weak self] in self?.abandon(id) }
        return slot
    }

    /// Forgets request `id` (its caller gave up); a late answer is dropped without complaint.
    private func abandon(_ id: Int) {
        state.withLock { state in
            guard state.pending.removeValue(forKey: id) != nil else { return }
            state.abandoned.append(id)
            if state.abandoned.count > 256 { state.abandoned.removeFirst(128) }
            state.lastActivity = clock.now
        }
    }

    /// Writes one message of the host's (a request or an answer) and, with `--debug`, logs it
    /// (`NAME → …`): every line the host sends goes through here.
    ///
    /// Never waits: what the pipe does not take now, the reader thread writes later.
    @discardableResult
    func post(_ line: String) -> Bool {
        if callbacks.debugMessages { callbacks.log(.debug, "\(name) → \(RPCMessage.printable(String(line.dropLast()), limit: 2000))") }
        let (accepted, waiting) = outbox.withLock { outbox in
            let wasEmpty = outbox.isEmpty
            let accepted = outbox.send(line)
            return (accepted, wasEmpty && !outbox.isEmpty)
        }
        // The reader polls stdin for room only while the outbox holds something.
        if waiting { wakeReaderThread() }
        return accepted
    }

    /// Wakes the reader thread's `poll` (a new deadline, bytes to write); never blocks.
    func wakeReaderThread() {
        var one: UInt64 = 1
        _ = Glibc.write(wakeReader, &one, 8)
    }

    /// Closes the extension's stdin (it should exit on EOF), at once: what waited to be
    /// written is dropped.
    func closeInput() {
        outbox.withLock { $0.close() }
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
            killUnlessEnded(by: clock.now + Self.shutdownStepSeconds, after: "\(Int(Self.shutdownStepSeconds)) s")
        }
        // No thread to wait with: no grace either, rather than a process that may never end.
        if !started { process.signalGroup(SIGKILL) }
    }

    /// Waits until the process has ended or `deadline` (on `clock`) has passed; past it,
    /// SIGKILL to the group (logged: "still running `wait` after SIGTERM").
    func killUnlessEnded(by deadline: Double, after wait: String) {
        guard endLatch.wait(until: deadline, clock: clock) == nil else { return }
        callbacks.log(.info, "\(name): still running \(wait) after SIGTERM; SIGKILL")
        process.signalGroup(SIGKILL)
    }

    /// Marks the connection closing if nothing is pending and it has been idle for
    /// `idleExitSeconds`; the host calls it with its lock held (see `detachIfIdle`).
    func markClosingIfIdle() -> Bool {
        state.withLock { state in
            guard state.pending.isEmpty, !state.closing,
                  clock.now >= state.lastActivity + Double(limits.idleExitSeconds) - 0.001 else { return false }
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
            state.lastActivity = clock.now
            if let pending = state.pending.removeValue(forKey: id) {
                state.timedOut = false  // it answers: not hung
                return .some(pending.complete)
            }
            return state.abandoned.contains(id) ? .some(nil) : nil
        }
    }

    /// Whether a request timed out with nothing answered since (it may be hung).
    var hasTimedOut: Bool { state.withLock { $0.timedOut && !$0.ended } }

    /// Fails the requests whose deadline has passed with `.timedOut` (each logged). Called by
    /// the reader thread.
    func expireRequests() {
        let now = clock.now
        let expired = state.withLock { state -> [(Int, Pending)] in
            let expired = state.pending.filter { $0.value.deadline <= now }.sorted { $0.key < $1.key }
            for (id, _) in expired {
                state.pending.removeValue(forKey: id)
                state.abandoned.append(id)
            }
            if state.abandoned.count > 256 { state.abandoned.removeFirst(state.abandoned.count - 128) }
            if !expired.isEmpty {
                state.timedOut = true
                state.lastActivity = now
            }
            return expired
        }
        for (_, request) in expired {
            callbacks.log(.error, "\(name): \(request.label) timed out after \(limits.requestSeconds) s")
            request.complete(.failure(.timedOut(seconds: limits.requestSeconds)))
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
