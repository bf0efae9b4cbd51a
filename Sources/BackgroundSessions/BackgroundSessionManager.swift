import Dispatch
import FoundationEssentials
import Glibc
import Synchronization
import WidgetCore

/// Hands out background sessions by identifier, runs their downloads on an `HTTPTransport`,
/// journals tasks and results in SQLite, and delivers the events to widgets in WidgetKit's
/// order. One per host.
///
/// **Delivery.** When a task finishes, its result is committed to the journal, then the manager
/// calls `eventRouter` with the session identifier. The router returns the matching widget's
/// `BackgroundSessionEventsHandler` (see `router(for:)`), or nil: then the events are kept (at
/// most `Retention`) and routed again when a session for the identifier is created or its
/// delegate is set, or when the host calls `routePendingEvents()`. The manager calls the
/// handler with `(identifier, completion)`. Delivery starts once the handler has been called
/// **and** a delegate is attached to the session (the handler normally gets its session with
/// `session(identifier:delegate:)`, which attaches it): every pending event in order —
/// `didFinishDownloadingTo` for a download, `didCompleteWithError` — then
/// `urlSessionDidFinishEvents`. The events are acknowledged (removed from the journal, their
/// files deleted) only when the completion has been called, before or after the delivery
/// ends. A completion called with no delegate attached acknowledges nothing: the events wait
/// for the next routing. Events recorded while a batch is out are routed after it, with a new
/// handler call.
///
/// **Threading.** Every method is thread-safe. The router, the handlers and every delegate call
/// run on `deliveryQueue`, a serial queue of this manager; a handler or delegate may call back
/// into the manager. The host hops to its main actor itself.
///
/// **Restart.** Events recorded but not acknowledged are delivered again (at least once, in
/// order). Tasks that were in flight are suspended until `resumeTasks(urlFor:)` starts them
/// again under their identifiers.
public final class BackgroundSessionManager: Sendable {
    /// Returns the handler of the widget whose configuration matches a session identifier.
    public typealias EventRouter = @Sendable (_ identifier: String) -> BackgroundSessionEventsHandler?

    /// Whether this manager owns the state directory.
    public enum Availability: Sendable, Equatable {
        case available
        /// Another host holds the lock: no journal, tasks complete at once with this message.
        case unavailable(String)
    }

    /// How long undelivered events are kept.
    public struct Retention: Sendable {
        /// Most events kept per session identifier; the oldest go first.
        public var maxEventsPerSession: Int
        /// Events older than this (seconds) are dropped.
        public var maxAge: Double

        public init(maxEventsPerSession: Int = 100, maxAge: Double = 7 * 24 * 3600) {
            self.maxEventsPerSession = maxEventsPerSession
            self.maxAge = maxAge
        }
    }

    /// Points where a crash test can stop the process; nil in production.
    public struct Hooks: Sendable {
        /// A task's transfer has been handed to the transport.
        public var afterTransferStarted: (@Sendable (BackgroundDownloadTask) -> Void)?
        /// Inside the transaction that records a result, before its commit.
        public var duringJournalWrite: (@Sendable () -> Void)?
        /// A result has been committed (before it is routed).
        public var afterResultRecorded: (@Sendable (SessionEvent) -> Void)?

        public init() {}
    }

    struct Running {
        let task: BackgroundDownloadTask
        var transfer: TransferID?
    }

    enum Phase {
        case idle
        case handlerCalled
        case delivering([SessionEvent])
        case awaitingCompletion([SessionEvent])
    }

    struct Route {
        var phase: Phase = .idle
        var generation = 0
        var completionCalled = false
    }

    struct State {
        var journal: SessionJournal?
        var router: EventRouter?
        var sessions: [String: BackgroundSession] = [:]
        var delegates: [String: any BackgroundSessionDelegate] = [:]
        var running: [Int: Running] = [:]
        var suspended: [Int: BackgroundDownloadTask] = [:]
        var completed: [Int: BackgroundDownloadTask] = [:]
        var pending: [String: [SessionEvent]] = [:]
        var routes: [String: Route] = [:]
        var nextMemoryID = 1
        var closed = false
        var lastJournalError: String?
    }

    public let stateDirectory: String
    public let availability: Availability
    /// What `open` had to repair, for the log and the status bar: a journal that was not a
    /// database was moved aside (`sessions.sqlite.corrupt-<time>`) and a new one started.
    /// Nil when the journal opened as it was.
    public let recoveryNotice: String?
    /// The serial queue on which routers, handlers and delegates are called: a queue of this
    /// manager, or one the host gives (the dashboard passes its main queue, so delivery needs
    /// no Dispatch worker thread and lands where its state lives).
    public let deliveryQueue: DispatchQueue
    private let transport: any HTTPTransport
    private let now: @Sendable () -> Date
    private let retention: Retention
    private let hooks: Hooks
    private let lock: StateDirectoryLock?
    private let state: Mutex<State>

    /// The journal's path under a state directory.
    public static func journalPath(stateDirectory: String) -> String { FilePaths.join(stateDirectory, "sessions.sqlite") }

    /// Opens the background sessions of `stateDirectory` (created if missing).
    ///
    /// The directory is made private (0700; journal and lock 0600) and refused when another
    /// user owns it (`StateDirectory`). Takes the directory's lock without waiting; when another
    /// host holds it the manager is returned with `availability == .unavailable(…)` and never
    /// opens the journal. Otherwise it loads the journal — one that is not a database is moved
    /// aside and a new one started (`recoveryNotice`) — drops events past `retention`, removes
    /// the files of ours the journal knows and no event needs (`SessionFiles.sweep`), and holds
    /// the tasks that were in flight until `resumeTasks(urlFor:)`.
    /// Throws `StateDirectoryError`, `FileSystemError` or `SQLiteError` when the directory or
    /// journal cannot be used.
    public static func open(stateDirectory: String, transport: any HTTPTransport,
                            now: @escaping @Sendable () -> Date = { Date() },
                            retention: Retention = Retention(), hooks: Hooks = Hooks(),
                            deliveryQueue: DispatchQueue? = nil) throws -> BackgroundSessionManager {
        let deliveryQueue = deliveryQueue ?? DispatchQueue(label: "widgethost.background-sessions.delivery")
        try StateDirectory.prepare(stateDirectory)
        guard let lock = try StateDirectoryLock.acquire(directory: stateDirectory) else {
            let message = "another widgethost is using \(stateDirectory); background sessions are off"
            return BackgroundSessionManager(stateDirectory: stateDirectory, availability: .unavailable(message), transport: transport,
                                            now: now, retention: retention, hooks: hooks, lock: nil, recoveryNotice: nil,
                                            state: State(), deliveryQueue: deliveryQueue)
        }
        let (journal, notice, events, running) = try loadJournal(stateDirectory: stateDirectory, now: now())
        let manager = BackgroundSessionManager(
            stateDirectory: stateDirectory, availability: .available, transport: transport, now: now, retention: retention,
            hooks: hooks, lock: lock, recoveryNotice: notice, state: State(journal: journal), deliveryQueue: deliveryQueue)
        manager.state.withLock { s in
            for event in events { s.pending[event.sessionIdentifier, default: []].append(event) }
            for task in running {
                guard let url = URL(string: task.url) else { continue }
                s.suspended[task.taskIdentifier] = manager.makeTask(
                    id: task.taskIdentifier, session: task.sessionIdentifier, description: task.taskDescription,
                    url: url, state: .suspended, attempts: task.attempts)
            }
            manager.settle(&s, dropped: manager.prune(&s))
            manager.removeOrphanFiles(&s)
        }
        return manager
    }

    /// Opens the journal and reads what a start needs. One that is not a database (or whose
    /// pages are damaged) is moved aside and a new one started, with a notice saying so.
    private static func loadJournal(stateDirectory: String, now: Date) throws
        -> (journal: SessionJournal, notice: String?, events: [SessionEvent], running: [JournaledTask]) {
        let path = journalPath(stateDirectory: stateDirectory)
        func load() throws(SQLiteError) -> (SessionJournal, [SessionEvent], [JournaledTask]) {
            let journal = try SessionJournal(path: path, readOnly: false)
            do {
                let events = try journal.events { session, taskID in bodyPath(stateDirectory: stateDirectory, session: session, taskID: taskID) }
                return (journal, events, try journal.runningTasks())
            } catch {
                journal.close()
                throw error
            }
        }
        let message: String
        do {
            let (journal, events, running) = try load()
            return (journal, nil, events, running)
        } catch {
            guard error.isNotADatabase else { throw error }
            message = error.message
        }
        let moved = try SessionJournal.moveAside(path: path, now: now)
        let name = moved.split(separator: "/").last.map(String.init) ?? moved
        let (journal, events, running) = try load()
        return (journal, "the sessions journal was not a database (\(message)): moved aside to \(name), started a new one",
                events, running)
    }

    /// Where task `taskID`'s body is kept: derived from the session and the task, never read
    /// from the journal, so a hand-edited journal cannot point the host at any other file.
    private static func bodyPath(stateDirectory: String, session identifier: String, taskID: Int) -> String {
        FilePaths.join(FilePaths.join(FilePaths.join(stateDirectory, "sessions"), FilePaths.component(forIdentifier: identifier)),
                       SessionFiles.bodyName(taskID))
    }

    private func bodyPath(session identifier: String, taskID: Int) -> String {
        Self.bodyPath(stateDirectory: stateDirectory, session: identifier, taskID: taskID)
    }

    /// Opens with a `WidgetClock` as the source of "now".
    public static func open(stateDirectory: String, transport: any HTTPTransport, clock: any WidgetClock,
                            retention: Retention = Retention(), hooks: Hooks = Hooks(),
                            deliveryQueue: DispatchQueue? = nil) throws -> BackgroundSessionManager {
        try open(stateDirectory: stateDirectory, transport: transport, now: { clock.now }, retention: retention, hooks: hooks,
                 deliveryQueue: deliveryQueue)
    }

    private init(stateDirectory: String, availability: Availability, transport: any HTTPTransport, now: @escaping @Sendable () -> Date,
                 retention: Retention, hooks: Hooks, lock: StateDirectoryLock?, recoveryNotice: String?, state: sending State,
                 deliveryQueue: DispatchQueue) {
        self.deliveryQueue = deliveryQueue
        self.stateDirectory = stateDirectory
        self.availability = availability
        self.recoveryNotice = recoveryNotice
        self.transport = transport
        self.now = now
        self.retention = retention
        self.hooks = hooks
        self.lock = lock
        self.state = Mutex(state)
    }

    /// A router over the host's widget configurations: the first handler that matches.
    ///
    /// `configurations` is called on `deliveryQueue` each time events are routed, so it may
    /// return what the host has now (after a config reload, say).
    public static func router<View>(for configurations: @escaping @Sendable () -> [WidgetConfiguration<View>]) -> EventRouter {
        { identifier in configurations().lazy.compactMap { $0.backgroundSessionHandler(for: identifier) }.first }
    }

    /// Finds the widget for a session identifier when its events are ready (see the type's
    /// documentation). Setting it does not route by itself: call `routePendingEvents()` or
    /// `resumeTasks(urlFor:)`.
    public var eventRouter: EventRouter? {
        get { state.withLock { $0.router } }
        set { state.withLock { $0.router = newValue } }
    }

    /// The last journal write that failed, if any (the work went on in memory).
    public var lastJournalError: String? { state.withLock { $0.lastJournalError } }

    // MARK: - Sessions

    /// The session for `identifier`, created on first use and cached afterwards.
    ///
    /// A non-nil `delegate` replaces the session's delegate (a widget re-creating its session
    /// after a restart); attaching one may start the delivery of pending events.
    public func session(identifier: String, delegate: (any BackgroundSessionDelegate)? = nil) -> BackgroundSession {
        let (session, pump) = state.withLock { s -> (BackgroundSession, Bool) in
            if let delegate { s.delegates[identifier] = delegate }
            // Only a new delegate, or events waiting, can move delivery on: a provider asking
            // for its session on every reload must not cost the delivery queue a turn.
            let pump = delegate != nil || !(s.pending[identifier]?.isEmpty ?? true)
            if let existing = s.sessions[identifier] { return (existing, pump) }
            let session = BackgroundSession(identifier: identifier, manager: self)
            if !s.closed { s.sessions[identifier] = session }
            return (session, pump)
        }
        if pump { schedulePump(identifier) }
        return session
    }

    func delegate(for identifier: String) -> (any BackgroundSessionDelegate)? { state.withLock { $0.delegates[identifier] } }

    func tasks(session identifier: String) -> [BackgroundDownloadTask] {
        state.withLock { s in
            (s.running.values.map(\.task) + s.suspended.values)
                .filter { $0.sessionIdentifier == identifier }
                .sorted { $0.taskIdentifier < $1.taskIdentifier }
        }
    }

    // MARK: - Tasks

    func downloadTask(session identifier: String, url: URL, taskDescription: String?,
                      headers: [String: String] = [:]) -> BackgroundDownloadTask {
        let urlString = url.absoluteString
        enum Next { case existing(BackgroundDownloadTask), start(BackgroundDownloadTask), failed(BackgroundDownloadTask) }
        let next = state.withLock { s -> Next in
            if let running = s.running.values.first(where: { $0.task.sessionIdentifier == identifier && $0.task.url.absoluteString == urlString }) {
                return .existing(running.task)
            }
            if let suspended = s.suspended.values.first(where: { $0.sessionIdentifier == identifier && $0.url.absoluteString == urlString }) {
                s.suspended[suspended.taskIdentifier] = nil
                let task = makeTask(id: suspended.taskIdentifier, session: identifier, description: suspended.taskDescription,
                                    url: url, state: .running, attempts: suspended.attempts)
                s.running[task.taskIdentifier] = Running(task: task)
                return .start(task)
            }
            guard case .available = availability, let journal = s.journal, !s.closed else {
                let message: String
                if case .unavailable(let m) = availability { message = m } else { message = "the background session manager is closed" }
                let task = makeTask(id: s.nextMemoryID, session: identifier, description: taskDescription, url: url, state: .completed)
                s.nextMemoryID += 1
                record(&s, task: task, outcome: .unavailable(message))
                return .failed(task)
            }
            do {
                let id = try journal.insertTask(session: identifier, description: taskDescription, url: urlString, now: now())
                let task = makeTask(id: id, session: identifier, description: taskDescription, url: url, state: .running)
                s.running[id] = Running(task: task)
                return .start(task)
            } catch {
                s.lastJournalError = "\(error)"
                let task = makeTask(id: -s.nextMemoryID, session: identifier, description: taskDescription, url: url, state: .completed)
                s.nextMemoryID += 1
                record(&s, task: task, outcome: .failed(reason: "cannot write the journal: \(error)", attempts: 0, retryAfter: nil))
                return .failed(task)
            }
        }
        switch next {
        case .existing(let task): return task
        case .failed(let task):
            schedulePump(identifier)
            return task
        case .start(let task):
            startTransfer(task, headers: headers)
            return task
        }
    }

    private func makeTask(id: Int, session: String, description: String?, url: URL, state: BackgroundDownloadTask.State,
                          attempts: Int = 0) -> BackgroundDownloadTask {
        BackgroundDownloadTask(taskIdentifier: id, sessionIdentifier: session, taskDescription: description, url: url,
                               state: state, attempts: attempts, cancel: { [weak self] in self?.cancel(taskIdentifier: $0) },
                               retryNow: { [weak self] in self?.retryNow(taskIdentifier: $0) ?? .notWaiting })
    }

    /// The directory that keeps a session's downloaded files until they are acknowledged.
    public func filesDirectory(session identifier: String) -> String {
        FilePaths.join(FilePaths.join(stateDirectory, "sessions"), FilePaths.component(forIdentifier: identifier))
    }

    /// - Parameter headers: extra request headers, kept in memory only (never journalled: they
    ///   may carry credentials), so a task resumed after a restart goes without them until a
    ///   widget asks for it again with its headers.
    private func startTransfer(_ task: BackgroundDownloadTask, headers: [String: String] = [:]) {
        let directory = filesDirectory(session: task.sessionIdentifier)
        do {
            try SessionFiles.prepareDirectory(stateDirectory: stateDirectory,
                                              component: FilePaths.component(forIdentifier: task.sessionIdentifier))
        } catch {
            finishTransfer(task.taskIdentifier, .failed(TransferFailure(kind: .fileSystem, reason: error.description, attempts: 0)))
            return
        }
        let request = TransferRequest(url: task.url.absoluteString, directory: directory,
                                      fileName: SessionFiles.bodyName(task.taskIdentifier), headers: headers)
        let id = task.taskIdentifier
        let transferID = transport.start(request) { [weak self] event in
            switch event {
            case .retrying(let attempt, _, let reason): self?.attemptFailed(id, attempt: attempt, reason: reason)
            case .finished(let result): self?.finishTransfer(id, result)
            }
        }
        state.withLock { $0.running[id]?.transfer = transferID }
        hooks.afterTransferStarted?(task)
    }

    private func attemptFailed(_ id: Int, attempt: Int, reason: String) {
        state.withLock { s in
            guard let running = s.running[id] else { return }
            running.task.update(attempts: attempt, lastError: reason)
            do { try s.journal?.recordAttempt(id, attempts: attempt, reason: reason, now: now()) } catch {
                s.lastJournalError = "\(error)"
            }
        }
    }

    private func finishTransfer(_ id: Int, _ result: TransferResult) {
        let event = state.withLock { s -> SessionEvent? in
            guard let running = s.running.removeValue(forKey: id) else { return nil }
            let outcome: SessionEvent.Outcome
            switch result {
            case .downloaded(let f):
                // The transport wrote it where `startTransfer` asked: the body's derived path.
                outcome = .downloaded(file: bodyPath(session: running.task.sessionIdentifier, taskID: id), status: f.status,
                                      byteCount: f.byteCount, validators: f.validators, attempts: f.attempts)
                running.task.update(attempts: f.attempts)
            case .notModified(let v): outcome = .notModified(v)
            case .failed(let f):
                outcome = .failed(reason: f.reason, attempts: f.attempts, retryAfter: f.retryAfter)
                running.task.update(attempts: f.attempts)
            case .cancelled: outcome = .cancelled
            }
            if s.closed { return nil }
            return record(&s, task: running.task, outcome: outcome)
        }
        guard let event else { return }
        hooks.afterResultRecorded?(event)
        schedulePump(event.sessionIdentifier)
    }

    /// Journals a task's result and queues its event; the task is completed. Under the lock.
    @discardableResult
    private func record(_ s: inout State, task: BackgroundDownloadTask, outcome: SessionEvent.Outcome) -> SessionEvent {
        task.update(state: .completed)
        s.completed[task.taskIdentifier] = task
        var event: SessionEvent
        if let journal = s.journal {
            do {
                event = try journal.recordResult(session: task.sessionIdentifier, taskID: task.taskIdentifier,
                                                 description: task.taskDescription, url: task.url.absoluteString,
                                                 outcome: outcome, now: now(), duringWrite: { hooks.duringJournalWrite?() })
            } catch {
                s.lastJournalError = "\(error)"
                event = memoryEvent(&s, task: task, outcome: outcome)
            }
        } else {
            event = memoryEvent(&s, task: task, outcome: outcome)
        }
        s.pending[task.sessionIdentifier, default: []].append(event)
        settle(&s, dropped: prune(&s))
        return event
    }

    private func memoryEvent(_ s: inout State, task: BackgroundDownloadTask, outcome: SessionEvent.Outcome) -> SessionEvent {
        // Above every journalled id, so it is delivered after them.
        let id = Int64.max / 2 + Int64(s.nextMemoryID)
        s.nextMemoryID += 1
        return SessionEvent(eventID: id, sessionIdentifier: task.sessionIdentifier, taskIdentifier: task.taskIdentifier,
                            taskDescription: task.taskDescription, url: task.url.absoluteString, outcome: outcome,
                            recorded: now(), deliveryCount: 0)
    }

    /// Cancels a task that has not completed; its delegate gets `.cancelled`.
    public func cancel(taskIdentifier id: Int) {
        let (transfer, session) = state.withLock { s -> (TransferID?, String?) in
            let task: BackgroundDownloadTask
            var transfer: TransferID?
            if let running = s.running.removeValue(forKey: id) {
                task = running.task
                transfer = running.transfer
            } else if let suspended = s.suspended.removeValue(forKey: id) {
                task = suspended
            } else {
                return (nil, nil)
            }
            record(&s, task: task, outcome: .cancelled)
            return (transfer, task.sessionIdentifier)
        }
        if let transfer { transport.cancel(transfer) }
        if let session { schedulePump(session) }
    }

    /// Cuts a running task's retry wait short (`BackgroundDownloadTask.retryNow()`); a server's
    /// `Retry-After` is honoured. `.notWaiting` for a task that is suspended, completed, unknown,
    /// or whose transfer has not been handed to the transport yet.
    @discardableResult
    public func retryNow(taskIdentifier id: Int) -> RetryNowResult {
        guard let transfer = state.withLock({ $0.running[id]?.transfer }) else { return .notWaiting }
        return transport.retryNow(transfer)
    }

    /// Starts again the tasks that were in flight when the host stopped, under their
    /// identifiers, with the URL `urlFor(sessionIdentifier, taskDescription)` gives now; then
    /// routes pending events (`routePendingEvents()`).
    ///
    /// A task for which `urlFor` returns nil (its widget is gone) stays suspended and listed
    /// until it is cancelled or purged. Like `downloadTask`, at most one task runs per session
    /// and URL: of several that would fetch the same URL in one session (a journal holding
    /// hundreds), the oldest starts and the others are dropped from the journal without an
    /// event — the widget gets the one result it asked for. Transfers to one host wait their
    /// turn in the transport (`CurlTransportConfiguration.maxConcurrentPerHost`). Returns the
    /// tasks started.
    @discardableResult
    public func resumeTasks(urlFor: (_ sessionIdentifier: String, _ taskDescription: String?) -> URL?) -> [BackgroundDownloadTask] {
        func key(_ session: String, _ url: String) -> String { "\(session.utf8.count):\(session)\(url)" }
        let (suspended, running) = state.withLock { s in
            (s.suspended.values.sorted { $0.taskIdentifier < $1.taskIdentifier },
             Set(s.running.values.map { key($0.task.sessionIdentifier, $0.task.url.absoluteString) }))
        }
        var runningKeys = running
        var duplicates: [Int] = []
        var started: [BackgroundDownloadTask] = []
        for old in suspended {
            guard let url = urlFor(old.sessionIdentifier, old.taskDescription) else { continue }
            let urlString = url.absoluteString
            let task = state.withLock { s -> BackgroundDownloadTask? in
                guard !s.closed, s.suspended[old.taskIdentifier] != nil else { return nil }
                s.suspended[old.taskIdentifier] = nil
                guard runningKeys.insert(key(old.sessionIdentifier, urlString)).inserted else {
                    // The same fetch as a task running now (resumed just before, or joined by a widget).
                    duplicates.append(old.taskIdentifier)
                    return nil
                }
                do { try s.journal?.updateTaskURL(old.taskIdentifier, url: urlString, now: now()) } catch {
                    s.lastJournalError = "\(error)"
                }
                let task = makeTask(id: old.taskIdentifier, session: old.sessionIdentifier, description: old.taskDescription,
                                    url: url, state: .running, attempts: old.attempts)
                s.running[task.taskIdentifier] = Running(task: task)
                return task
            }
            if let task {
                startTransfer(task)
                started.append(task)
            }
        }
        if !duplicates.isEmpty {
            state.withLock { s in
                do { try s.journal?.deleteTasks(duplicates) } catch { s.lastJournalError = "\(error)" }
            }
        }
        routePendingEvents()
        return started
    }

    /// Routes the events of every identifier that has some waiting (after a config reload that
    /// may have added widgets, say).
    public func routePendingEvents() {
        let identifiers = state.withLock { s in s.pending.filter { !$0.value.isEmpty }.keys.sorted() }
        for identifier in identifiers { schedulePump(identifier) }
    }

    // MARK: - Introspection

    /// Events recorded and not yet acknowledged, in delivery order.
    public var pendingEvents: [SessionEvent] {
        state.withLock { s in s.pending.values.flatMap { $0 }.sorted { $0.eventID < $1.eventID } }
    }

    /// Tasks journalled before the host stopped and not resumed (yet), oldest first.
    public var suspendedTasks: [BackgroundDownloadTask] {
        state.withLock { s in s.suspended.values.sorted { $0.taskIdentifier < $1.taskIdentifier } }
    }

    /// True when nothing runs and no event waits.
    public var isIdle: Bool {
        state.withLock { s in s.running.isEmpty && s.pending.values.allSatisfy(\.isEmpty) }
    }

    /// Stops delivering, closes the journal and gives up the lock. Transfers in flight are
    /// abandoned (they stay `running` in the journal and are resumed by the next host).
    public func close() {
        let transfers = state.withLock { s -> [TransferID] in
            s.closed = true
            s.journal?.close()
            s.journal = nil
            s.sessions = [:]
            s.delegates = [:]
            defer { s.running = [:] }
            return s.running.values.compactMap(\.transfer)
        }
        for transfer in transfers { transport.cancel(transfer) }
        lock?.release()
    }

    // MARK: - Delivery (on deliveryQueue)

    private func schedulePump(_ identifier: String) {
        deliveryQueue.async { [self] in pump(identifier) }
    }

    private enum Step {
        case done
        case route(EventRouter?)
        case callHandler(BackgroundSessionEventsHandler, generation: Int)
        case deliver([SessionEvent], BackgroundSession, any BackgroundSessionDelegate)
        case acknowledge([SessionEvent])
    }

    /// Moves an identifier's delivery forward as far as it can go now.
    private func pump(_ identifier: String) {
        dispatchPrecondition(condition: .onQueue(deliveryQueue))
        var routed: BackgroundSessionEventsHandler??
        while true {
            let step = state.withLock { s -> Step in
                guard !s.closed else { return .done }
                var route = s.routes[identifier] ?? Route()
                defer { s.routes[identifier] = route }
                let pending = s.pending[identifier] ?? []
                switch route.phase {
                case .idle:
                    guard !pending.isEmpty else { return .done }
                    guard let found = routed else { return .route(s.router) }
                    routed = nil
                    guard let handler = found else { return .done }  // unmatched: kept
                    route.generation += 1
                    route.completionCalled = false
                    route.phase = .handlerCalled
                    return .callHandler(handler, generation: route.generation)
                case .handlerCalled:
                    guard let delegate = s.delegates[identifier] else {
                        // Completed without attaching a delegate: nothing was delivered.
                        if route.completionCalled { route.phase = .idle }
                        return .done
                    }
                    let session = s.sessions[identifier] ?? BackgroundSession(identifier: identifier, manager: self)
                    s.sessions[identifier] = session
                    route.phase = .delivering(pending)
                    do { try s.journal?.markDelivered(pending.map(\.eventID).filter { $0 < Int64.max / 2 }) } catch {
                        s.lastJournalError = "\(error)"
                    }
                    return .deliver(pending, session, delegate)
                case .delivering:
                    return .done
                case .awaitingCompletion(let batch):
                    guard route.completionCalled else { return .done }
                    route.phase = .idle
                    return .acknowledge(batch)
                }
            }
            switch step {
            case .done:
                return
            case .route(let router):
                routed = .some(router?(identifier))
            case .callHandler(let handler, let generation):
                handler.handler(identifier) { [weak self] in self?.handlerCompleted(identifier, generation: generation) }
            case .deliver(let batch, let session, let delegate):
                deliver(batch, session: session, delegate: delegate)
                state.withLock { s in s.routes[identifier]?.phase = .awaitingCompletion(batch) }
            case .acknowledge(let batch):
                acknowledge(batch, identifier: identifier)
            }
        }
    }

    private func handlerCompleted(_ identifier: String, generation: Int) {
        let matched = state.withLock { s -> Bool in
            guard s.routes[identifier]?.generation == generation, s.routes[identifier]?.completionCalled == false else { return false }
            s.routes[identifier]?.completionCalled = true
            return true
        }
        if matched { schedulePump(identifier) }
    }

    private func deliver(_ batch: [SessionEvent], session: BackgroundSession, delegate: any BackgroundSessionDelegate) {
        for event in batch {
            let task = state.withLock { $0.completed[event.taskIdentifier] }
                ?? makeTask(id: event.taskIdentifier, session: event.sessionIdentifier, description: event.taskDescription,
                            url: URL(string: event.url) ?? URL(fileURLWithPath: "/"), state: .completed)
            var error: BackgroundTaskError?
            switch event.outcome {
            case .downloaded(let file, _, _, _, _):
                // The delegate gets a hard link that is removed after the call; the kept file
                // stays until the completion, for a re-delivery after a crash. Both are named by
                // the session and the task only (`SessionFiles`).
                let component = FilePaths.component(forIdentifier: event.sessionIdentifier)
                if let location = SessionFiles.linkForDelivery(stateDirectory: stateDirectory, component: component,
                                                               taskID: event.taskIdentifier) {
                    delegate.urlSession(session, downloadTask: task, didFinishDownloadingTo: URL(fileURLWithPath: location))
                    SessionFiles.remove(stateDirectory: stateDirectory, component: component,
                                        name: SessionFiles.deliveryName(event.taskIdentifier))
                } else {
                    error = .fileMissing(file)
                }
            case .notModified(let validators): error = .notModified(validators)
            case .failed(let reason, let attempts, let retryAfter): error = .failed(reason: reason, attempts: attempts, retryAfter: retryAfter)
            case .cancelled: error = .cancelled
            case .unavailable(let message): error = .unavailable(message)
            }
            delegate.urlSession(session, task: task, didCompleteWithError: error)
        }
        delegate.urlSessionDidFinishEvents(forBackgroundURLSession: session)
    }

    private func acknowledge(_ batch: [SessionEvent], identifier: String) {
        state.withLock { s in
            do { try s.journal?.acknowledge(batch.filter { $0.eventID < Int64.max / 2 }) } catch {
                s.lastJournalError = "\(error)"
                return
            }
            let ids = Set(batch.map(\.eventID))
            s.pending[identifier]?.removeAll { ids.contains($0.eventID) }
            for event in batch { s.completed[event.taskIdentifier] = nil }
            // The files, then the tasks: the journal knows a file until it is gone.
            settle(&s, dropped: batch)
        }
    }

    // MARK: - Files and retention

    /// Drops events past the retention limits from identifiers that are not being delivered;
    /// returns them (their files still exist). Under the lock.
    private func prune(_ s: inout State) -> [SessionEvent] {
        let oldest = now().addingTimeInterval(-retention.maxAge)
        var dropped: [SessionEvent] = []
        for (identifier, events) in s.pending {
            if let route = s.routes[identifier], case .idle = route.phase {} else if s.routes[identifier] != nil { continue }
            var keep = events.filter { $0.recorded >= oldest }
            if keep.count > retention.maxEventsPerSession { keep.removeFirst(keep.count - retention.maxEventsPerSession) }
            guard keep.count != events.count else { continue }
            let kept = Set(keep.map(\.eventID))
            dropped += events.filter { !kept.contains($0.eventID) }
            s.pending[identifier] = keep
        }
        if !dropped.isEmpty {
            do { try s.journal?.discard(dropped.filter { $0.eventID < Int64.max / 2 }) } catch { s.lastJournalError = "\(error)" }
            for event in dropped { s.completed[event.taskIdentifier] = nil }
        }
        return dropped
    }

    /// Removes the kept bodies of events that are done with (by session and task, never by a
    /// path from the journal).
    private func removeFiles(of events: [SessionEvent]) {
        for event in events {
            guard case .downloaded = event.outcome else { continue }
            SessionFiles.remove(stateDirectory: stateDirectory, component: FilePaths.component(forIdentifier: event.sessionIdentifier),
                                name: SessionFiles.bodyName(event.taskIdentifier))
        }
    }

    /// Drops the journal's finished tasks of events whose files are gone. Under the lock.
    private func forgetTasks(_ s: inout State, of events: [SessionEvent]) {
        let ids = events.filter { $0.eventID < Int64.max / 2 }.map(\.taskIdentifier)
        do { try s.journal?.forgetTasks(ids) } catch { s.lastJournalError = "\(error)" }
    }

    /// Events acknowledged or dropped by retention: their files, then their tasks. Under the lock.
    private func settle(_ s: inout State, dropped: [SessionEvent]) {
        guard !dropped.isEmpty else { return }
        removeFiles(of: dropped)
        forgetTasks(&s, of: dropped)
    }

    /// At open, while nothing runs: removes the files of ours that the journal knows and no
    /// kept event needs — bodies renamed into place by a host killed before it journalled
    /// them, transport temp files, delivery links, bodies of events acknowledged just before a
    /// crash — then the finished tasks no event refers to any more. A file is removed only
    /// when its name is ours (`SessionFiles.parse`) *and* the journal records its task in the
    /// session whose directory holds it; symbolic links are never followed. Under the lock.
    private func removeOrphanFiles(_ s: inout State) {
        guard let journal = s.journal else { return }
        var kept: Set<String> = []
        for event in s.pending.values.joined() {
            guard case .downloaded = event.outcome else { continue }
            kept.insert(FilePaths.component(forIdentifier: event.sessionIdentifier) + "/" + String(event.taskIdentifier))
        }
        SessionFiles.sweep(stateDirectory: stateDirectory) { component, kind, taskID in
            if kind == .body && kept.contains(component + "/" + String(taskID)) { return false }
            guard let session = try? journal.session(ofTask: taskID) else { return false }
            return FilePaths.component(forIdentifier: session) == component
        }
        do { try journal.forgetSettledTasks() } catch { s.lastJournalError = "\(error)" }
    }
}
