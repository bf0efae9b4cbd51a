#if canImport(Glibc)
import Glibc
#endif
import CLinux
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
/// (one wake-up when `idleExitSeconds` have passed with nothing pending); `wh-ext-err` blocks
/// in `read` on stderr. Both end with the process; a stopped extension costs no thread and
/// no wake-up. Requests block their caller (a provider thread) on a `Latch` until the answer
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

    private struct Pending {
        let method: String
        let complete: @Sendable (Result<JSONValue, ExtensionError>) -> Void
    }

    private struct State {
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
    private let callbacks: Callbacks
    private let input: Int32
    private let output: Int32
    private let errors: Int32
    private let state: Mutex<State>
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
        guard Self.thread(name: "wh-ext-read", { [self] in readLoop() }) else {
            process.signalGroup(SIGKILL)
            closeInput()
            close(output)
            close(errors)
            return false
        }
        if !Self.thread(name: "wh-ext-err", { [self] in stderrLoop() }) { close(errors) }
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
        let line = RPCMessage.request(id: id, method: method, params: params)
        if callbacks.debugMessages { callbacks.log(.debug, "\(name) → \(RPCMessage.printable(String(line.dropLast()), limit: 2000))") }
        // A write that fails leaves the request pending: the process's end (EOF) or the
        // caller's deadline answers it, with the real reason.
        write(line, deadline: monotonicNow() + Double(limits.requestSeconds))
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

    /// Writes one line to the extension's stdin, waiting for room until `deadline`.
    @discardableResult
    func write(_ line: String, deadline: Double) -> Bool {
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

    /// Stops taking requests and ends the process now (the host quitting, a reset).
    func stop() {
        state.withLock { state in
            state.closing = true
            state.stopRequested = true
        }
        closeInput()
        process.signalGroup(SIGTERM)
    }

    // MARK: Reading

    private func readLoop() {
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var end: End = .crash("exited", protocolError: false)
        reading: while true {
            // The only timed wake-up: the idle exit.
            let lastActivity = state.withLock { $0.lastActivity }
            let timeout = lastActivity + Double(limits.idleExitSeconds) - monotonicNow()
            var fds = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, timeout <= 0 ? 0 : Int32(min(timeout * 1000, 86_400_000).rounded(.up)))
            if ready < 0 {
                if errno == EINTR { continue }
                end = .crash("cannot read from the extension: \(String(cString: strerror(errno)))", protocolError: false)
                break
            }
            if ready == 0 {
                guard beginIdleShutdown() else { continue }
                end = .expected
                // `shutdown` sent and stdin closed: EOF, else SIGTERM, else SIGKILL, to the group.
                if !waitForEOF(seconds: Self.shutdownStepSeconds) {
                    callbacks.log(.info, "\(name): still running after shutdown; SIGTERM")
                    process.signalGroup(SIGTERM)
                    if !waitForEOF(seconds: Self.shutdownStepSeconds) {
                        callbacks.log(.info, "\(name): still running after SIGTERM; SIGKILL")
                        process.signalGroup(SIGKILL)
                    }
                }
                break
            }
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                break
            }
            if count == 0 { break }  // EOF: the process closed its stdout (it exited, most likely)
            var start = 0
            for index in 0..<count where chunk[index] == UInt8(ascii: "\n") {
                buffer += chunk[start..<index]
                start = index + 1
                if buffer.count > Self.maximumLineBytes {
                    end = .crash("sent a line longer than 1 MiB", protocolError: true)
                    break reading
                }
                if let violation = handle(line: buffer) {
                    end = .crash(violation, protocolError: true)
                    break reading
                }
                buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            }
            buffer += chunk[start..<count]
            if buffer.count > Self.maximumLineBytes {
                end = .crash("sent a line longer than 1 MiB", protocolError: true)
                break
            }
        }
        if case .crash = end {
            // A crash or a protocol error: nothing of the group may linger.
            process.signalGroup(SIGKILL)
        }
        finish(end)
        close(output)
    }

    /// Waits up to `seconds` for the extension's stdout to reach EOF (discarding what it
    /// still says); true at EOF.
    private func waitForEOF(seconds: Double) -> Bool {
        let deadline = monotonicNow() + seconds
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            var fds = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let left = max(0, deadline - monotonicNow())
            let ready = poll(&fds, 1, Int32((left * 1000).rounded(.up)))
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { return false }
            let count = chunk.withUnsafeMutableBytes { read(output, $0.baseAddress, $0.count) }
            if count == 0 { return true }
            if count < 0 && errno != EINTR && errno != EAGAIN { return true }
        }
    }

    /// With nothing pending since `idleExitSeconds`: detach from the host, ask the extension
    /// to `shutdown`, close its stdin. False when it is not idle after all.
    private func beginIdleShutdown() -> Bool {
        guard callbacks.detachIfIdle(self) else { return false }
        let id = state.withLock { state -> Int in
            let id = state.nextID
            state.nextID += 1
            state.abandoned.append(id)  // its answer is welcome and needs no one
            return id
        }
        callbacks.log(.info, "\(name): idle for \(limits.idleExitSeconds) s; shutting down")
        write(RPCMessage.request(id: id, method: "shutdown", params: nil), deadline: monotonicNow() + 1)
        closeInput()
        return true
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

    /// Handles one line; returns a protocol violation, or nil.
    private func handle(line bytes: [UInt8]) -> String? {
        var line = bytes[...]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return nil }  // blank lines are allowed
        if callbacks.debugMessages {
            callbacks.log(.debug, "\(name) ← \(RPCMessage.printable(String(decoding: line.prefix(2000), as: UTF8.self), limit: 2000))")
        }
        let value: JSONValue
        do {
            value = try JSONParser(maximumBytes: Self.maximumLineBytes, maximumDepth: 2 * 64 + 24).parse(Array(line))
        } catch {
            return "sent a line that is not JSON (\(error.description))"
        }
        guard case .object(let message) = value else { return "sent \(value.shortDescription), not a JSON-RPC message object" }
        guard message["jsonrpc"] == .string("2.0") else { return "sent a message without \"jsonrpc\": \"2.0\"" }
        if case .string(let method)? = message["method"] {
            do throws(ProtocolViolation) {
                if let answer = try callbacks.incoming(method, message["params"], message["id"]) {
                    write(answer, deadline: monotonicNow() + Double(limits.requestSeconds))
                }
                state.withLock { $0.lastActivity = monotonicNow() }
                return nil
            } catch {
                return error.message
            }
        }
        guard case .integer(let id)? = message["id"] else {
            return "sent a message that is neither a request, a notification nor an answer with an integer id"
        }
        let result: Result<JSONValue, ExtensionError>
        if let value = message["result"], message["error"] == nil {
            result = .success(value)
        } else if case .object(let error)? = message["error"], message["result"] == nil {
            var code = 0
            if case .integer(let number)? = error["code"] { code = number }
            var text = "no message"
            if case .string(let given)? = error["message"] { text = RPCMessage.printable(given, limit: 200) }
            result = .failure(.remote(code: code, message: text))
        } else {
            return "sent an answer to \(id) without exactly one of \"result\" and \"error\""
        }
        let pending = state.withLock { state -> Pending?? in
            state.lastActivity = monotonicNow()
            if let pending = state.pending.removeValue(forKey: id) { return .some(pending) }
            return state.abandoned.contains(id) ? .some(nil) : nil
        }
        switch pending {
        case .some(.some(let request)):
            request.complete(result)
            return nil
        case .some(.none):
            callbacks.log(.debug, "\(name): late answer to request \(id) dropped")
            return nil
        case .none:
            return "answered request \(id), which is not pending"
        }
    }

    /// Fails what is pending with the reason and tells the host, once.
    private func finish(_ end: End) {
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
    }

    private func stderrLoop() {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var line: [UInt8] = []
        var logged = 0
        func emit() {
            defer { line.removeAll(keepingCapacity: true) }
            guard !line.isEmpty else { return }
            logged += 1
            if logged <= Self.maximumStderrLines {
                callbacks.log(.info, "\(name) stderr: \(RPCMessage.printable(String(decoding: line, as: UTF8.self), limit: 500))")
            } else if logged == Self.maximumStderrLines + 1 {
                callbacks.log(.info, "\(name) stderr: more output dropped")
            }
        }
        while true {
            let count = chunk.withUnsafeMutableBytes { read(errors, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            for byte in chunk[..<count] {
                if byte == UInt8(ascii: "\n") { emit() }
                else if line.count < 2000 { line.append(byte) }
            }
        }
        emit()
        close(errors)
    }

    // MARK: Threads

    private final class ThreadBody {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a detached thread named `name` (at most 15 characters).
    static func thread(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(ThreadBody(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 256 * 1024)
        let result = pthread_create(&thread, &attributes, { raw in
            let body = Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue()
            wh_set_thread_name(body.name)
            body.body()
            return nil
        }, context)
        pthread_attr_destroy(&attributes)
        if result != 0 { Unmanaged<ThreadBody>.fromOpaque(context).release() }
        return result == 0
    }
}

/// How much a log line matters.
public enum ExtensionLogLevel: String, Sendable {
    case debug, info, error
}
