import Dispatch
import FoundationEssentials
import Synchronization

/// What the background sessions keep on disk: the journal (`SessionJournal`), the files of
/// the sessions' downloads (`SessionFiles`) and what retention drops. No clock: every write
/// that stamps a time is given `now`.
///
/// **Threading.** The journal is used by one caller at a time, under `access`: the store's
/// own serial queue, or the delivery queue (the dashboard's loop) through `immediately`. No
/// fsync ever happens on the delivery queue: there SQLite's commits only append to the WAL
/// (`synchronous=NORMAL`, automatic checkpoints off); the checkpoint (fsyncs) runs on the
/// transport's thread before it records a result (`recordResult`), and the one commit after
/// a checkpoint that fsyncs the WAL's new header is that result's, in the same hold of
/// `access`. `immediately` runs nothing — the caller queues the write with `async` and
/// hears back through a callback — when another thread holds the journal (a checkpoint on
/// a slow disk must not stall the loop), when a write queued earlier has not run yet (order),
/// or when the next commit would fsync (`SessionJournal.commitOnlyAppends`). `sync` (the
/// caller waits: recording a task or a result, on a provider's or the transport's thread) must
/// not be called on the delivery queue — a debug build checks it (`dispatchPrecondition`).
/// Serial, so writes land in the order they were asked for.
final class SessionStore: @unchecked Sendable {
    /// The journal writes a test can observe (`BackgroundSessionManager.Hooks.beforeJournalWrite`).
    typealias Write = BackgroundSessionManager.JournalWrite

    let stateDirectory: String
    private let queue = DispatchQueue(label: "widgethost.background-sessions.journal")
    /// The queue `sync` must never be called on (the manager's delivery queue).
    private let deliveryQueue: DispatchQueue
    private let hooks: BackgroundSessionManager.Hooks
    /// Used only under `access` (nil: unavailable, or closed).
    private var journal: SessionJournal?
    private let lastErrorBox = Mutex<String?>(nil)
    /// Held while the journal is in use (on the store's queue, or by `immediately`).
    private let access = Mutex<Void>(())
    /// Bodies queued with `async` that have not finished yet.
    private let queued = Atomic<Int>(0)
    /// The next task identifier to hand out (`reserveTaskID`), journalled or not: above every
    /// one the journal has given, so a task that ran in memory and is journalled at its result
    /// keeps its identifier (its body's name). Those a killed host held in memory are given
    /// again by the next one; `removeOrphanFiles` removes what they left.
    private let nextTaskID: Atomic<Int>
    /// `nextTaskID` at open: files of tasks from here on were never journalled.
    private let firstUnjournalledID: Int

    /// The last journal write that failed, if any (the work went on in memory).
    var lastError: String? { lastErrorBox.withLock { $0 } }

    private init(stateDirectory: String, journal: SessionJournal?, deliveryQueue: DispatchQueue,
                 hooks: BackgroundSessionManager.Hooks, firstTaskID: Int = 1) {
        self.stateDirectory = stateDirectory
        self.journal = journal
        self.nextTaskID = Atomic(firstTaskID)
        self.firstUnjournalledID = firstTaskID
        self.deliveryQueue = deliveryQueue
        self.hooks = hooks
    }

    /// A store without a journal (another host holds the state directory).
    static func unavailable(stateDirectory: String, deliveryQueue: DispatchQueue,
                            hooks: BackgroundSessionManager.Hooks) -> SessionStore {
        SessionStore(stateDirectory: stateDirectory, journal: nil, deliveryQueue: deliveryQueue, hooks: hooks)
    }

    /// What `open` found: unacknowledged events and tasks left running, and what it repaired.
    struct Loaded {
        var store: SessionStore
        var notice: String?
        var events: [SessionEvent]
        var running: [JournaledTask]
    }

    /// Opens the journal of `stateDirectory` and reads what a start needs. One that is not a
    /// database (or whose pages are damaged) is moved aside and a new one started, with a
    /// notice saying so. Runs on the caller's thread (the host's start, before any delivery).
    static func open(stateDirectory: String, now: Date, deliveryQueue: DispatchQueue,
                     hooks: BackgroundSessionManager.Hooks) throws -> Loaded {
        let path = BackgroundSessionManager.journalPath(stateDirectory: stateDirectory)
        func load() throws(SQLiteError) -> (SessionJournal, [SessionEvent], [JournaledTask], Int) {
            let journal = try SessionJournal(path: path, readOnly: false)
            do {
                let events = try journal.events { session, taskID in
                    BackgroundSessionManager.bodyPath(stateDirectory: stateDirectory, session: session, taskID: taskID)
                }
                return (journal, events, try journal.runningTasks(), try journal.firstUnusedTaskID())
            } catch {
                journal.close()
                throw error
            }
        }
        func loaded(_ journal: SessionJournal, _ notice: String?, _ events: [SessionEvent], _ running: [JournaledTask],
                    _ firstTaskID: Int) -> Loaded {
            Loaded(store: SessionStore(stateDirectory: stateDirectory, journal: journal, deliveryQueue: deliveryQueue, hooks: hooks,
                                       firstTaskID: firstTaskID),
                   notice: notice, events: events, running: running)
        }
        let message: String
        do {
            let (journal, events, running, firstTaskID) = try load()
            return loaded(journal, nil, events, running, firstTaskID)
        } catch {
            guard error.isNotADatabase else { throw error }
            message = error.message
        }
        let moved = try SessionJournal.moveAside(path: path, now: now)
        let name = moved.split(separator: "/").last.map(String.init) ?? moved
        let (journal, events, running, firstTaskID) = try load()
        return loaded(journal, "the sessions journal was not a database (\(message)): moved aside to \(name), started a new one",
                      events, running, firstTaskID)
    }

    // MARK: - Running on the store's queue

    /// Runs `body` on the store's queue and waits for it. Never on the delivery queue.
    func sync<T>(_ body: (SessionStore) -> T) -> T {
        dispatchPrecondition(condition: .notOnQueue(deliveryQueue))
        return queue.sync { access.withLock { _ in body(self) } }
    }

    /// `sync` without the delivery-queue check: only while the manager opens (the host's
    /// start, before anything can be delivered).
    func syncWhileOpening<T>(_ body: (SessionStore) -> T) -> T {
        queue.sync { access.withLock { _ in body(self) } }
    }

    /// Queues `body` on the store's queue; the caller does not wait.
    func async(_ body: @escaping @Sendable (SessionStore) -> Void) {
        queued.add(1, ordering: .sequentiallyConsistent)
        queue.async { [self] in
            access.withLock { _ in body(self) }
            queued.subtract(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Runs `body` now, on the caller's thread (the delivery queue), when its commits can only
    /// append to the WAL: the journal is free, nothing queued earlier waits, and the next
    /// commit is no WAL restart. Nil (and `body` not run) otherwise: queue it with `async`.
    /// `body` must not checkpoint (only `recordResult` does).
    func immediately<T: Sendable>(_ body: (SessionStore) -> T) -> T? {
        guard queued.load(ordering: .sequentiallyConsistent) == 0 else { return nil }
        let ran = access.withLockIfAvailable { _ -> T? in
            guard journal?.commitOnlyAppends ?? true else { return nil }
            return body(self)
        }
        return ran ?? nil
    }

    /// Finishes the writes queued so far and closes the journal.
    func close() {
        queue.sync {
            access.withLock { _ in
                journal?.close()
                journal = nil
            }
        }
    }

    /// True while the journal is open. Inside `sync`, `async` or `immediately`.
    var isOpen: Bool { journal != nil }

    /// Runs one journal write on the store's queue; a failure is kept in `lastError` and
    /// answered nil.
    private func write<T>(_ kind: Write, _ body: (SessionJournal) throws(SQLiteError) -> T) -> T? {
        guard let journal else { return nil }
        hooks.beforeJournalWrite?(kind)
        do {
            return try body(journal)
        } catch {
            lastErrorBox.withLock { $0 = "\(error)" }
            return nil
        }
    }

    /// Journalled events only: events kept in memory (no journal, or a failed write) have ids
    /// above every journalled one.
    static func journalled(_ events: [SessionEvent]) -> [SessionEvent] { events.filter { $0.eventID < memoryEventIDBase } }

    /// The first id of events kept only in memory (delivered after every journalled one).
    static let memoryEventIDBase = Int64.max / 2

    /// A task identifier never given before in this journal, without writing (any thread).
    func reserveTaskID() -> Int { nextTaskID.add(1, ordering: .relaxed).oldValue }

    // MARK: - Writes (on the store's queue)

    /// Records a new running task; nil when the journal is closed or the write failed (see `lastError`).
    func insertTask(session: String, description: String?, url: String, now: Date) -> Result<Int, SQLiteError>? {
        guard let journal else { return nil }
        hooks.beforeJournalWrite?(.insertTask)
        do {
            return .success(try journal.insertTask(session: session, description: description, url: url, now: now,
                                                   taskID: reserveTaskID()))
        } catch {
            lastErrorBox.withLock { $0 = "\(error)" }
            return .failure(error)
        }
    }

    func updateTaskURL(_ taskID: Int, url: String, now: Date) {
        _ = write(.updateTaskURL) { journal throws(SQLiteError) in try journal.updateTaskURL(taskID, url: url, now: now) }
    }

    func recordAttempt(_ taskID: Int, attempts: Int, reason: String, now: Date) {
        _ = write(.recordAttempt) { journal throws(SQLiteError) in
            try journal.recordAttempt(taskID, attempts: attempts, reason: reason, now: now)
        }
    }

    /// Journals a task's result (task finished, event appended, in one transaction; the task's
    /// row made in it too when `insertingTask`: it ran in memory); nil when
    /// there is no journal or the write failed. A checkpoint that is due runs first: this is
    /// called on the transport's thread (never the delivery queue), and its commit is the one
    /// that restarts the WAL after the checkpoint (`SessionStore`'s threading).
    func recordResult(task: BackgroundDownloadTask, outcome: SessionEvent.Outcome, now: Date,
                      insertingTask: Bool = false) -> SessionEvent? {
        if let journal {
            do {
                try journal.checkpointIfDue(frames: hooks.checkpointFrames ?? SessionJournal.checkpointFrames) {
                    hooks.beforeJournalWrite?(.checkpoint)
                }
            } catch {
                lastErrorBox.withLock { $0 = "\(error)" }  // the WAL grows; the next result tries again
            }
        }
        return write(.recordResult) { journal throws(SQLiteError) in
            try journal.recordResult(session: task.sessionIdentifier, taskID: task.taskIdentifier,
                                     description: task.taskDescription, url: task.url.absoluteString,
                                     outcome: outcome, now: now, insertingTask: insertingTask,
                                     duringWrite: { hooks.duringJournalWrite?() })
        }
    }

    /// Counts one more delivery of each event.
    func recordDelivery(_ events: [SessionEvent]) {
        let journalled = Self.journalled(events)
        guard !journalled.isEmpty else { return }
        _ = write(.recordDelivery) { journal throws(SQLiteError) in try journal.markDelivered(journalled.map(\.eventID)) }
    }

    /// Acknowledges delivered events: removes them from the journal, then their files, then
    /// their tasks (the journal knows a file until it is gone). False when the journal write
    /// failed: then nothing is removed and the events stay.
    func acknowledge(_ events: [SessionEvent]) -> Bool {
        let journalled = Self.journalled(events)
        if !journalled.isEmpty {
            // Closed: the journal still holds them, so their files stay for the next host.
            guard isOpen, write(.acknowledge, { journal throws(SQLiteError) in try journal.acknowledge(journalled) }) != nil else {
                return false
            }
        }
        forgetFiles(of: events)
        return true
    }

    /// Drops events past retention from the journal, then their files and tasks.
    func discard(_ events: [SessionEvent]) {
        let journalled = Self.journalled(events)
        if !journalled.isEmpty {
            guard isOpen, write(.discard, { journal throws(SQLiteError) in try journal.discard(journalled) }) != nil else { return }
        }
        forgetFiles(of: events)
    }

    /// Removes tasks that will never run (duplicates of a resumed task).
    func deleteTasks(_ taskIDs: [Int]) {
        guard !taskIDs.isEmpty else { return }
        _ = write(.deleteTasks) { journal throws(SQLiteError) in try journal.deleteTasks(taskIDs) }
    }

    /// The kept bodies of events that are done with (by session and task, never by a path from
    /// the journal), then the journal's finished tasks of those events.
    private func forgetFiles(of events: [SessionEvent]) {
        guard !events.isEmpty else { return }
        for event in events {
            guard case .downloaded = event.outcome else { continue }
            SessionFiles.remove(stateDirectory: stateDirectory, component: FilePaths.component(forIdentifier: event.sessionIdentifier),
                                name: SessionFiles.bodyName(event.taskIdentifier))
        }
        let ids = Self.journalled(events).map(\.taskIdentifier)
        guard !ids.isEmpty else { return }
        _ = write(.forgetTasks) { journal throws(SQLiteError) in try journal.forgetTasks(ids) }
    }

    /// At open, while nothing runs: removes the files of ours that the journal knows and no
    /// kept event needs — bodies renamed into place by a host killed before it journalled
    /// them, transport temp files, delivery links, bodies of events acknowledged just before a
    /// crash — then the finished tasks no event refers to any more. A file is removed only
    /// when its name is ours (`SessionFiles.parse`) *and* the journal records its task in the
    /// session whose directory holds it, or its task is above every one the journal gave (it
    /// ran in memory, see `reserveTaskID`); symbolic links are never followed.
    func removeOrphanFiles(keeping events: [SessionEvent]) {
        guard let journal else { return }
        var kept: Set<String> = []
        for event in events {
            guard case .downloaded = event.outcome else { continue }
            kept.insert(FilePaths.component(forIdentifier: event.sessionIdentifier) + "/" + String(event.taskIdentifier))
        }
        SessionFiles.sweep(stateDirectory: stateDirectory) { component, kind, taskID in
            if kind == .body && kept.contains(component + "/" + String(taskID)) { return false }
            // A task the journal never recorded: one that ran in memory in a host killed before
            // its result (its identifier is above every journalled one) left a body or a
            // transport's temporary file (a delivery link comes only after a journalled result).
            if taskID >= firstUnjournalledID { return kind != .delivery }
            guard let session = try? journal.session(ofTask: taskID) else { return false }
            return FilePaths.component(forIdentifier: session) == component
        }
        _ = write(.forgetTasks) { journal throws(SQLiteError) in try journal.forgetSettledTasks() }
    }

    // MARK: - Files (any thread; no fsync)

    /// Links a downloaded event's kept body for the delegate (`delivered-task-N`); nil when the
    /// body is missing. `removeDeliveryLink` removes it after the call.
    func linkForDelivery(_ event: SessionEvent) -> String? {
        SessionFiles.linkForDelivery(stateDirectory: stateDirectory, component: FilePaths.component(forIdentifier: event.sessionIdentifier),
                                     taskID: event.taskIdentifier)
    }

    func removeDeliveryLink(_ event: SessionEvent) {
        SessionFiles.remove(stateDirectory: stateDirectory, component: FilePaths.component(forIdentifier: event.sessionIdentifier),
                            name: SessionFiles.deliveryName(event.taskIdentifier))
    }
}
