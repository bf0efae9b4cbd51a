#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import ExtensionProtocol
import FoundationEssentials
import HostProcesses
import JSONTree
import Synchronization
import WidgetCore

/// Runs one extension for all its panels: launches its process on the first request, sends
/// requests with a timeout each, relaunches it with backoff after a crash, and marks it
/// failed after `maximumCrashes` crashes in a row (until a user reload or `resetFailures()`).
///
/// Nothing runs until a panel asks: discovery, `widgets`, `check-config` and placeholders
/// never launch anything. Thread-safe; `request` suspends its task (holding no thread) for at
/// most the manifest's `requestSeconds`. A request that timed out is logged; `r` on one of
/// its panels then relaunches the extension (it may be hung), other reloads keep it.
public final class ExtensionHost: Sendable {
    /// Crashes in a row after which the extension is failed.
    public static let maximumCrashes = 5
    /// The longest wait before a relaunch after crashes (seconds); it doubles from 1 s.
    public static let maximumBackoffSeconds = 30.0

    /// What the host knows about its process, for tests, the log and the closing note.
    public struct Status: Sendable, Equatable {
        public var isRunning: Bool
        public var isFailed: Bool
        /// Processes started so far.
        public var launches: Int
        public var crashesInARow: Int
        public var protocolErrors: Int
        /// The running process's id.
        public var pid: pid_t?
        public var lastFailure: String?
    }

    struct State {
        var manifest: ExtensionManifest
        /// Why it cannot run: its manifest went away at a config reload (see `markRemoved`).
        var removed: String?
        var spawner: ProcessSpawner?
        var environment: [String: String] = [:]
        var stateDirectory: String?
        var connection: ExtensionConnection?
        var generation: UInt64 = 0
        var launches = 0
        var crashesInARow = 0
        var protocolErrors = 0
        var relaunchAfter = 0.0
        var lastFailure: String?
        var failed = false
        var instances = 0
        /// Instance names by kind and options, so a panel's provider and its actions agree.
        var instanceNames: [String: String] = [:]
        var sessions: BackgroundSessionManager?
        /// Session events the extension has not answered: sent again on its next launch.
        var held: [SessionDelivery] = []
        /// Why the last `sessionEvents` went unanswered (nil once one is answered).
        var unanswered: ExtensionError?
        /// The manager whose interrupted downloads with headers were failed already.
        weak var checkedSessions: BackgroundSessionManager?
        /// The marks of downloads started with headers, in the data directory (set by `bind`).
        var ledger: HeaderLedger?
        /// Connections detached at their idle exit (or stopped for `r` after a timeout) that
        /// have not ended yet: stopped with the current one when the host quits.
        var retiring: [ExtensionConnection] = []
        /// The host is quitting (`stopConnections(quitting: true)`): nothing launches any more —
        /// a delivery or a provider call still running would otherwise relaunch the extension
        /// it has just stopped, and that process could outlive the host.
        var quitting = false
        /// When the first of `held` was held (monotonic seconds), for `heldDueAgain`.
        var heldSince: Double?
        /// Session events waiting for the delivery thread, in order (see `startDelivery`).
        var deliveries: [SessionDelivery] = []
        /// Whether the delivery thread (`wh-ext-deliver`, one per extension at most) runs.
        var delivering = false
        /// What the delivery thread waits on through a relaunch backoff: a stop ends it with
        /// false (the events are held), a reset (`R`) with true (it tries again at once).
        var backoffWait: Latch<Bool>?
        /// Stops so far: a stop before the delivery thread began its wait ends it too.
        var stops: UInt64 = 0
        /// `initialize` answers with a protocol this host speaks, over all launches
        /// (`extension test` checks the first).
        var initializeAnswers = 0
        /// The budget follows the request (DESIGN.md §3): user-initiated requests out now; a
        /// download the extension starts meanwhile is awaited by the user (`awaited`), and a
        /// `reloadTimelines` it sends while its events are delivered carries that cause
        /// (`deliveringCause`). In memory only: events delivered again after a restart are the
        /// system's.
        var userRequests = 0
        var awaited: [String: WidgetCenter.Cause] = [:]
        var deliveringCause: WidgetCenter.Cause?
    }

    /// Why the last `sessionEvents` failed (an error answer, a timeout, a crash), until one is
    /// answered: `extension run` reports it rather than waiting for events that stay held.
    public var unansweredEvents: ExtensionError? { state.withLock { $0.unanswered } }
    /// Rung when session events go unanswered (`unansweredEvents` is set): what waits for
    /// downloads to finish (`extension run`, `preview`) checks again instead of polling.
    public let eventsUnansweredBell = Wakeup()

    /// The extension's name (`NAME` of `NAME/KIND`): a host serves one name for its life.
    public let name: String
    /// The manifest now: a config reload that finds it changed replaces it (`update`).
    public var manifest: ExtensionManifest { state.withLock { $0.manifest } }
    let runtime: ExtensionRuntime.Shared
    /// Shared with the sessions half (ExtensionHost+Sessions.swift).
    let state: Mutex<State>

    init(manifest: ExtensionManifest, runtime: ExtensionRuntime.Shared) {
        name = manifest.name
        state = Mutex(State(manifest: manifest))
        self.runtime = runtime
    }

    /// Sets what launches use: the spawner (whose children the host's loop reaps), the host's
    /// environment (for `PATH`, `HOME`, locale and `TZ` only) and the state directory (the
    /// extension's data directory is `STATE/extensions/NAME`). The last binding wins.
    ///
    /// The first binding to a session manager also fails the downloads with headers a stopped
    /// host left (`failInterruptedHeaderDownloads`), before the dashboard resumes the others.
    public func bind(spawner: ProcessSpawner, environment: [String: String], stateDirectory: String?,
                     sessions: BackgroundSessionManager? = nil) {
        let first = state.withLock { state -> Bool in
            let first = sessions != nil && sessions !== state.checkedSessions
            if first { state.checkedSessions = sessions }
            state.sessions = sessions
            state.spawner = spawner
            state.environment = environment
            state.stateDirectory = stateDirectory
            let ledger = ExtensionLauncher.headerLedgerPath(name: name, stateDirectory: stateDirectory, environment: environment)
            if state.ledger?.path != ledger { state.ledger = HeaderLedger(path: ledger) }
            return first
        }
        if first, let sessions { failInterruptedHeaderDownloads(sessions) }
    }

    public var status: Status {
        state.withLock { state in
            Status(isRunning: state.connection != nil, isFailed: state.failed, launches: state.launches,
                   crashesInARow: state.crashesInARow, protocolErrors: state.protocolErrors,
                   pid: state.connection?.process.pid, lastFailure: state.lastFailure)
        }
    }

    /// The name of the panel of `kind` with `options` (`today#3`): the same for its provider
    /// and its actions, new for other options, stable for this host's life.
    func instanceName(kind: String, options: WidgetOptions) -> String {
        let key = kind + "\u{0}" + RPCMessage.json(options).jsonText
        return state.withLock { state in
            if let name = state.instanceNames[key] { return name }
            state.instances += 1
            let name = "\(kind)#\(state.instances)"
            state.instanceNames[key] = name
            return name
        }
    }

    /// Logs a bad answer with all its problems (a panel's footer has room for the first only).
    func logBadAnswer(to method: String, instance: String, _ error: ExtensionError) {
        guard case .badAnswer(let problems) = error else { return }
        runtime.log(.error, "\(name): bad answer to \(method) for \(instance): \(problems)")
    }

    /// Clears a failed state and the backoff (the user pressed `R`, the config was reloaded).
    public func resetFailures() {
        let waiting = state.withLock { state -> Latch<Bool>? in
            state.failed = false
            state.crashesInARow = 0
            state.relaunchAfter = 0
            return state.backoffWait
        }
        waiting?.fulfil(true)
    }

    /// Takes a changed manifest (a config reload): the running process, started from the old
    /// one, is stopped; the next request launches the new one afresh (no failure carried over).
    public func update(manifest: ExtensionManifest) {
        state.withLock { state in
            state.manifest = manifest
            state.removed = nil
            state.failed = false
            state.crashesInARow = 0
            state.relaunchAfter = 0
        }
        stop()
    }

    /// Whether its manifest went away at a config reload.
    public var isRemoved: Bool { state.withLock { $0.removed != nil } }

    /// Its manifest is gone (a config reload): the process is stopped and every request fails
    /// with `reason`, so its panels say so; a manifest found again brings it back (`update`).
    public func markRemoved(_ reason: String) {
        state.withLock { $0.removed = reason }
        stop()
    }

    /// Stops the process now if one runs (SIGTERM to its group, stdin closed; SIGKILL 2 s
    /// later if it has not ended), and any still ending after its idle exit. A session
    /// delivery waiting out a relaunch backoff stops waiting and holds its events.
    public func stop() { _ = stopConnections() }

    /// `stop()`, returning the connections stopped.
    func stopConnections(quitting: Bool = false) -> [ExtensionConnection] {
        let (connections, waiting) = state.withLock { state -> ([ExtensionConnection], Latch<Bool>?) in
            defer { state.connection = nil }
            if quitting { state.quitting = true }
            state.stops += 1
            return ((state.connection.map { [$0] } ?? []) + state.retiring, state.backoffWait)
        }
        waiting?.fulfil(false)
        for connection in connections { connection.stop() }
        return connections
    }

    // MARK: Requests

    /// Sends `method` with `params` and awaits the answer's `result` (the task suspended,
    /// holding no thread).
    ///
    /// - Parameter userInitiated: a user's reload also retries a failed extension and skips
    ///   the relaunch backoff.
    /// - Throws: `ExtensionError` (timed out, stopped, failed, the extension's own error).
    public func request(_ method: String, params: JSONValue?, userInitiated: Bool = false) async throws(ExtensionError) -> JSONValue {
        // A picker's `options` query is the user's too, but a download it starts shows nothing.
        let awaitsData = userInitiated && method != HostMethod.options.rawValue
        if awaitsData { state.withLock { $0.userRequests += 1 } }
        defer { if awaitsData { state.withLock { $0.userRequests -= 1 } } }
        let answer = try start(method, params: params, userInitiated: userInitiated)
        return try settle(await answer.value())
    }

    /// `request` for a thread of the host's own (session deliveries), blocking it.
    func requestBlocking(_ method: String, params: JSONValue?) throws(ExtensionError) -> JSONValue {
        try settle(start(method, params: params, userInitiated: false).wait())
    }

    /// The one request path, whoever waits for the answer: a connection (launched, or
    /// relaunched after a crash or a hang, by `connectionForRequest`) takes the request.
    private func start(_ method: String, params: JSONValue?, userInitiated: Bool) throws(ExtensionError) -> AnswerSlot {
        // A connection that began its idle exit just as we took it: relaunch.
        for _ in 0..<3 {
            let connection = try connectionForRequest(userInitiated: userInitiated)
            if let answer = connection.request(method, params: params) { return answer }
        }
        throw .stopped("it kept shutting down while a request was sent")
    }

    /// What an answer does to the host, whoever waited for it: an answer ends the crashes in
    /// a row and sends held session events again when they are due (`heldDueAgain`); a
    /// failure is thrown (as `.failed` when the host gave up).
    private func settle(_ answer: AnswerSlot.Answer) throws(ExtensionError) -> JSONValue {
        switch answer {
        case .success(let value):
            let retry = state.withLock { state -> [SessionDelivery] in
                state.crashesInARow = 0
                return Self.heldDueAgain(&state, now: runtime.clock.now)
            }
            for delivery in retry { startDelivery(delivery) }
            return value
        case .failure(let error):
            throw gaveUp(error)
        }
    }

    /// How long held session events wait before a process that answers again gets them again.
    static let heldRetrySeconds = 30.0

    /// The held session events, taken for delivery again, when they have waited
    /// `heldRetrySeconds` and the process answers (it was slow once, not dead): an extension
    /// kept busy by its panels never idle-exits, so waiting for its next launch could hold its
    /// downloads' events until the host restarts — and the manager sends those sessions
    /// nothing more until they are answered.
    static func heldDueAgain(_ state: inout State, now: Double) -> [SessionDelivery] {
        guard !state.held.isEmpty, let since = state.heldSince, now - since >= heldRetrySeconds, !state.quitting else { return [] }
        defer {
            state.held.removeAll()
            state.heldSince = nil
        }
        return state.held
    }

    /// The crash that made the host give up (the last of `maximumCrashes` in a row) reaches its
    /// request as `.failed`, so the panel says so at once rather than "stopped".
    private func gaveUp(_ error: ExtensionError) -> ExtensionError {
        guard case .stopped(let reason) = error, state.withLock({ $0.failed }) else { return error }
        return .failed(reason)
    }

    private func connectionForRequest(userInitiated: Bool) throws(ExtensionError) -> ExtensionConnection {
        var hung: ExtensionConnection?
        defer { hung?.stop() }
        let (connection, held) = try state.withLock { state throws(ExtensionError) -> (ExtensionConnection, [SessionDelivery]) in
            if let removed = state.removed { throw .removed(removed) }
            if state.quitting { throw .stopped("the host is quitting") }
            if state.failed {
                guard userInitiated else { throw .failed(state.lastFailure ?? "crashed") }
                state.failed = false
                state.crashesInARow = 0
            }
            if let connection = state.connection {
                // The user's reload (r) of a panel whose request timed out: the process may be
                // hung, so a new one serves (the old one is stopped, not counted as a crash).
                guard userInitiated, connection.hasTimedOut else { return (connection, []) }
                runtime.log(.info, "\(name): a request timed out; relaunched for a reload (r)")
                state.connection = nil
                state.retiring.append(connection)
                hung = connection
            }
            let now = runtime.clock.now
            if now < state.relaunchAfter, !userInitiated {
                throw .restarting(reason: state.lastFailure ?? "crashed", inSeconds: Int((state.relaunchAfter - now).rounded(.up)))
            }
            let connection = try launch(&state)
            defer {
                state.held.removeAll()
                state.heldSince = nil
            }
            return (connection, state.held)
        }
        // Events it did not answer last time go to the new process (`initialize` is out first).
        for delivery in held { startDelivery(delivery) }
        return connection
    }

    /// Starts the process and sends `initialize`. Called with the lock held.
    private func launch(_ state: inout State) throws(ExtensionError) -> ExtensionConnection {
        guard let spawner = state.spawner else { throw .launchFailed("the host did not bind the extension to a process spawner") }
        state.launches += 1
        state.generation += 1
        let program: String
        switch ExtensionLauncher.resolve(state.manifest.exec[0], directory: state.manifest.directory, path: state.environment["PATH"]) {
        case .success(let found): program = found
        case .failure(let failure):
            throw launchFailed(&state, failure.message)
        }
        let dataDirectory = ExtensionLauncher.dataDirectory(name: name, stateDirectory: state.stateDirectory,
                                                            environment: state.environment)
        let environment = ExtensionLauncher.environment(from: state.environment, dataDirectory: dataDirectory)
        let limits = ProcessLimits(addressSpaceBytes: UInt64(state.manifest.limits.memoryMiB) << 20,
                                   cpuSeconds: UInt64(state.manifest.limits.cpuSeconds))
        ExtensionLauncher.ignoreSIGPIPE()
        let process: SpawnedProcess
        do {
            let name = name
            let log = runtime.log
            process = try spawner.spawn([program] + state.manifest.exec.dropFirst(), environment: environment,
                                        workingDirectory: state.manifest.directory, standardInput: .pipe,
                                        limits: limits) { exit in log(.info, "\(name): process \(exit)") }
        } catch {
            throw launchFailed(&state, error.description)
        }
        let connection = ExtensionConnection(
            process: process, generation: state.generation, name: name, limits: state.manifest.limits,
            clock: runtime.clock, callbacks: callbacks(kinds: state.manifest.widgets.map(\.manifest.kind)))
        guard connection.start() else {
            throw launchFailed(&state, "cannot start a reader thread")
        }
        runtime.log(.info, "\(name): started (pid \(process.pid), launch \(state.launches))")
        state.connection = connection
        let initialize = RPCMessage.object([
            ("protocol", .integer(state.manifest.protocolVersion)),
            ("host", RPCMessage.object([("name", .string("widgethost")), ("version", .string(runtime.hostVersion))])),
        ])
        _ = connection.send(HostMethod.initialize.rawValue, params: initialize) { [weak self, weak connection] result in
            switch result {
            case .success(let value):
                guard case .object(let answer) = value, case .integer(let version)? = answer["protocol"],
                      ExtensionManifest.supportedProtocols.contains(version) else {
                    connection?.abort("answered initialize without a protocol this host speaks (expected {\"protocol\": 1})")
                    return
                }
                self?.state.withLock { $0.initializeAnswers += 1 }
            case .failure(.remote(let code, let message)):
                connection?.abort("refused initialize: \(code) \(message)")
            case .failure:
                break  // it stopped, or the host gave up: the reader reports it
            }
        }
        return connection
    }

    private func callbacks(kinds: [String]) -> ExtensionConnection.Callbacks {
        let runtime = self.runtime
        let name = name
        return ExtensionConnection.Callbacks(
            ended: { [self] connection, end in ended(connection, end) },
            detachIfIdle: { [self] connection in
                state.withLock { state in
                    guard connection.markClosingIfIdle() else { return false }
                    if state.connection === connection { state.connection = nil }
                    state.retiring.append(connection)
                    return true
                }
            },
            incoming: { [self] method, params, id throws(ExtensionConnection.ProtocolViolation) in
                if method == ExtensionMethod.download.rawValue { return try download(params, id: id) }
                // The first reload it sends with the events is the answer; more are its own.
                let cause = method == ExtensionMethod.reloadTimelines.rawValue
                    ? state.withLock { state in defer { state.deliveringCause = nil }; return state.deliveringCause } : nil
                return try runtime.incoming(extension: name, kinds: kinds, method: method, params: params, id: id, cause: cause)
            },
            log: runtime.log,
            debugMessages: runtime.debug)
    }

    private func ended(_ connection: ExtensionConnection, _ end: ExtensionConnection.End) {
        state.withLock { state in
            if state.connection === connection { state.connection = nil }
            state.retiring.removeAll { $0 === connection }
            switch end {
            case .expected:
                runtime.log(.info, "\(name): stopped")
            case .crash(let reason, let protocolError):
                recordCrash(&state, reason: reason, protocolError: protocolError)
            }
        }
    }

    /// A launch that failed for `reason`: recorded as a crash; the error to throw (`.failed`
    /// once the host gives up).
    private func launchFailed(_ state: inout State, _ reason: String) -> ExtensionError {
        recordCrash(&state, reason: reason, protocolError: false)
        return state.failed ? .failed(reason) : .launchFailed(reason)
    }

    private func recordCrash(_ state: inout State, reason: String, protocolError: Bool) {
        state.crashesInARow += 1
        if protocolError { state.protocolErrors += 1 }
        state.lastFailure = reason
        if state.crashesInARow >= Self.maximumCrashes {
            state.failed = true
            runtime.log(.error, "\(name): \(reason); failed \(state.crashesInARow) times in a row; the host gave up: not relaunched until r on one of its panels, R, or a config reload")
        } else {
            let backoff = min(Self.maximumBackoffSeconds, Double(1 << min(state.crashesInARow - 1, 10)))
            state.relaunchAfter = runtime.clock.now + backoff
            runtime.log(.error, "\(name): \(reason)\(protocolError ? " (protocol error)" : ""); relaunch in \(Int(backoff)) s at the earliest")
        }
    }
}
