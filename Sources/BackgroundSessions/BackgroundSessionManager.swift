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
/// into the manager. The host hops to its main actor itself. On `deliveryQueue` the journal is
/// written only by commits that append to the WAL (no fsync; else the write goes to the store's
/// own queue, `SessionStore`), and the manager's lock is never held across a journal write: a
/// commit that fsyncs (a WAL checkpoint, on the transport's thread) cannot stall a host whose
/// delivery queue is its main queue. `downloadTask` waits for its task's journal record,
/// so it must not be called on `deliveryQueue` (providers and the transport's thread call it; a
/// debug build checks).
///
/// **Parts.** `SessionStore` keeps the journal, the files and what retention drops;
/// `DeliveryState` (pure) decides which events go to which identifier and when they are
/// acknowledged; this type joins them to an `HTTPTransport` (tasks in `+Tasks`, delivery in
/// `+Delivery`).
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

    /// The journal writes, as `Hooks.beforeJournalWrite` names them.
    public enum JournalWrite: String, Sendable {
        case insertTask, updateTaskURL, recordAttempt, recordResult, recordDelivery, acknowledge, discard, forgetTasks, deleteTasks
        /// A checkpoint (the WAL copied into the database: fsyncs), before a result is recorded.
        case checkpoint
    }

    /// Points where a crash test can stop the process; nil in production.
    public struct Hooks: Sendable {
        /// A task's transfer has been handed to the transport.
        public var afterTransferStarted: (@Sendable (BackgroundDownloadTask) -> Void)?
        /// Inside the transaction that records a result, before its commit.
        public var duringJournalWrite: (@Sendable () -> Void)?
        /// A result has been committed (before it is routed).
        public var afterResultRecorded: (@Sendable (SessionEvent) -> Void)?
        /// Before each journal write, on the thread that makes it (the store's queue, or the
        /// delivery queue for a write made at once: `SessionStore.immediately`).
        public var beforeJournalWrite: (@Sendable (JournalWrite) -> Void)?
        /// The WAL frames at which the journal checkpoints (nil: `SessionJournal.checkpointFrames`).
        public var checkpointFrames: Int?
        /// Seconds before a delivery whose acknowledgement the journal refused is tried again
        /// (nil: `acknowledgeRetrySeconds`).
        public var acknowledgeRetrySeconds: Double?
        /// What times that retry (nil: the delivery queue's own `asyncAfter`, in real time): a
        /// `ManualClock`, so a test of the wait runs in simulated time.
        public var acknowledgeRetryClock: (any WidgetClock)?

        public init() {}
    }

    struct Running {
        let task: BackgroundDownloadTask
        var transfer: TransferID?
        /// False for a conditional re-fetch that runs in memory: its row is written with its
        /// result, and a 304 writes none (`downloadTask`).
        var journalled = true
    }

    struct State {
        var router: EventRouter?
        var sessions: [String: BackgroundSession] = [:]
        var delegates: [String: any BackgroundSessionDelegate] = [:]
        var running: [Int: Running] = [:]
        var suspended: [Int: BackgroundDownloadTask] = [:]
        var completed: [Int: BackgroundDownloadTask] = [:]
        var delivery = DeliveryState()
        /// Results queued on the store and not yet added to `delivery`.
        var resultsInFlight = 0
        var nextMemoryID = 1
        /// Session and URL (`validatedKey`) of each 200 with validators recorded since open:
        /// the transport sends them back, so the next fetch of that URL may well be a 304.
        var validated: Set<String> = []
        var closed = false
        /// Called when the manager is next idle (`whenIdle`).
        var idleWaiters: [SendableAction] = []
    }

    public let stateDirectory: String
    public let availability: Availability
    /// What `open` had to repair, for the log and the status bar: a journal that was not a
    /// database was moved aside (`sessions.sqlite.corrupt-<time>`) and a new one started.
    /// Nil when the journal opened as it was.
    public let recoveryNotice: String?
    /// The serial queue on which routers, handlers and delegates are called: a queue of this
    /// manager, or one the host gives (the dashboard passes its main queue, so delivery needs
    /// no Dispatch worker thread and lands where its state lives). No journal write runs on it.
    public let deliveryQueue: DispatchQueue
    let transport: any HTTPTransport
    let store: SessionStore
    let now: @Sendable () -> Date
    let retention: Retention
    let hooks: Hooks
    private let lock: StateDirectoryLock?
    let state: LockedState

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
            return BackgroundSessionManager(
                stateDirectory: stateDirectory, availability: .unavailable(message), transport: transport, now: now,
                retention: retention, hooks: hooks, lock: nil, recoveryNotice: nil,
                store: .unavailable(stateDirectory: stateDirectory, deliveryQueue: deliveryQueue, hooks: hooks),
                deliveryQueue: deliveryQueue)
        }
        let loaded = try SessionStore.open(stateDirectory: stateDirectory, now: now(), deliveryQueue: deliveryQueue, hooks: hooks)
        let manager = BackgroundSessionManager(
            stateDirectory: stateDirectory, availability: .available, transport: transport, now: now, retention: retention,
            hooks: hooks, lock: lock, recoveryNotice: loaded.notice, store: loaded.store, deliveryQueue: deliveryQueue)
        let (dropped, kept) = manager.state.withLock { s in
            for event in loaded.events { s.delivery.add(event) }
            for task in loaded.running {
                guard let url = URL(string: task.url) else { continue }
                s.suspended[task.taskIdentifier] = manager.makeTask(
                    id: task.taskIdentifier, session: task.sessionIdentifier, description: task.taskDescription,
                    url: url, state: .suspended, attempts: task.attempts)
            }
            return (s.delivery.prune(now: now(), retention: retention), s.delivery.allPending)
        }
        // Nothing is delivered yet: the host's start waits for these (no delivery to stall).
        loaded.store.syncWhileOpening { store in
            store.discard(dropped)
            store.removeOrphanFiles(keeping: kept)
        }
        WidgetContainer.removeUnfinishedWrites(stateDirectory: stateDirectory)
        return manager
    }

    /// Where the body of a session's task is kept until acknowledged.
    static func bodyPath(stateDirectory: String, session identifier: String, taskID: Int) -> String {
        FilePaths.join(FilePaths.join(FilePaths.join(stateDirectory, "sessions"), FilePaths.component(forIdentifier: identifier)),
                       SessionFiles.bodyName(taskID))
    }

    func bodyPath(session identifier: String, taskID: Int) -> String {
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
                 retention: Retention, hooks: Hooks, lock: StateDirectoryLock?, recoveryNotice: String?, store: SessionStore,
                 deliveryQueue: DispatchQueue) {
        self.deliveryQueue = deliveryQueue
        self.stateDirectory = stateDirectory
        self.availability = availability
        self.recoveryNotice = recoveryNotice
        self.transport = transport
        self.store = store
        self.now = now
        self.retention = retention
        self.hooks = hooks
        self.lock = lock
        self.state = LockedState(State())
    }

    /// A router over the host's widget configurations: the first handler that matches.
    ///
    /// `configurations` is called on `deliveryQueue` each time events are routed, so it may
    /// return what the host has now (after a config reload, say).
    public static func router<View>(for configurations: @escaping @Sendable () -> [WidgetConfiguration<View>]) -> EventRouter {
        { identifier in configurations().lazy.compactMap { $0.backgroundSessionHandler(for: identifier) }.first }
    }

    /// The URL to resume a session's task with, from the host's widget configurations: the
    /// first that gives one (`WidgetConfiguration.resumingBackgroundTasks(with:)`), for
    /// `resumeTasks(urlFor:)`. Nil — no widget claims the session now — leaves a task suspended.
    public static func resumeURL<View>(for configurations: [WidgetConfiguration<View>])
        -> @Sendable (_ sessionIdentifier: String, _ taskDescription: String?) -> URL? {
        let resolvers = configurations.compactMap(\.backgroundTaskResumeURL)
        return { session, description in
            for resolver in resolvers {
                if let url = resolver(session, description) { return url }  // each asked once, in order
            }
            return nil
        }
    }

    /// Finds the widget for a session identifier when its events are ready (see the type's
    /// documentation). Setting it does not route by itself: call `routePendingEvents()` or
    /// `resumeTasks(urlFor:)`.
    public var eventRouter: EventRouter? {
        get { state.withLock { $0.router } }
        set { state.withLock { $0.router = newValue } }
    }

    /// The last journal write that failed, if any (the work went on in memory).
    public var lastJournalError: String? { store.lastError }

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
            let pump = delegate != nil || !(s.delivery.pending[identifier]?.isEmpty ?? true)
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

    /// The directory that keeps a session's downloaded files until they are acknowledged.
    public func filesDirectory(session identifier: String) -> String {
        FilePaths.join(FilePaths.join(stateDirectory, "sessions"), FilePaths.component(forIdentifier: identifier))
    }

    // MARK: - Introspection

    /// Events recorded and not yet acknowledged, in delivery order.
    public var pendingEvents: [SessionEvent] { state.withLock { $0.delivery.allPending } }

    /// Tasks journalled before the host stopped and not resumed (yet), oldest first.
    public var suspendedTasks: [BackgroundDownloadTask] {
        state.withLock { s in s.suspended.values.sorted { $0.taskIdentifier < $1.taskIdentifier } }
    }

    /// True when nothing runs and no event waits (nor a result on its way to the journal).
    public var isIdle: Bool {
        state.withLock { $0.isIdle }
    }

    /// Stops delivering, finishes the journal writes queued so far, closes the journal and
    /// gives up the lock. Transfers in flight are abandoned (they stay `running` in the journal
    /// and are resumed by the next host).
    public func close() {
        let transfers = state.withLock { s -> [TransferID] in
            s.closed = true
            s.sessions = [:]
            s.delegates = [:]
            defer { s.running = [:] }
            return s.running.values.compactMap(\.transfer)
        }
        store.close()
        for transfer in transfers { transport.cancel(transfer) }
        lock?.release()
    }
}
