import FoundationEssentials

/// The synchronous core of the host: holds every instance's timeline, picks the entry to show,
/// and decides when to ask providers for new timelines.
///
/// It does no I/O and reads no clock: the caller passes `now`. The host's loop sleeps until
/// `nextWakeDate`, calls `advance(to:)`, redraws the instances in `entryChanged` and starts the
/// requests in `reloads`; providers' answers come back through `deliver` or `fail`.
///
/// Rules (DESIGN.md §3):
/// - the current entry is the latest whose date ≤ now, never one early; entries already past
///   when a timeline arrives collapse to the newest of them; an empty timeline keeps the
///   entry shown and drops the old timeline's entries ahead (nothing ahead);
/// - `.atEnd` asks at the last entry's date, `.after(d)` at `d`, `.never` only on request; a
///   date already past, or `.atEnd` with nothing ahead, waits the minimum reload interval;
/// - each request has a generation; answers for another generation are dropped; a request
///   not answered within the timeout fails, keeping the entry and scheduling a retry with
///   capped exponential backoff and jitter;
/// - reloads asked for while a request is in flight coalesce into one follow-up;
/// - system-initiated reloads keep the minimum interval (policy reloads from the last reload of
///   any kind, or `localReloadFloor` for instances computed locally; `WidgetCenter` reloads
///   may come in a burst of `centerBurst`, then one per interval) and the daily budget; user-initiated ones are exempt, and cut a retry wait short;
/// - the daily budget counts only policy reloads and the system's own `WidgetCenter` reloads;
///   what a user asked for (`r`, an action, and the reloads that bring the data they fetched,
///   `WidgetCenter.Cause.answer`), pushes (their own budget, `pushInterval`), retries, outages,
///   environment reloads (clock set, panel resized) and instances computed locally
///   (`pausable: false`: clocks) are free of it. A reload the budget holds back is reported in `Status.heldByBudgetUntil`.
///
/// Every event costs O(log n) in the number of instances: one deadline per instance lives in
/// a priority queue keyed by (date, insertion order); superseded deadlines are skipped lazily.
/// A value: a copy is a scheduler of its own (the instances' records are copied on the first
/// change after a copy; `Instance` is a class only so the hot path changes a record in place).
/// Not thread-safe: use it from the host's serial loop.
///
/// This file holds the instances and `advance(to:)`; answers (`deliver`, `fail`, retries) are in
/// `TimelineScheduler+Answers`, reload requests and the rate limits in `+Requests` (with
/// `ReloadHistory`), the deadline queue's bookkeeping in `+Queue`, the per-instance record in
/// `+Instance`.
public struct TimelineScheduler {
    /// What the panel of an instance should show about its data.
    public struct Status {
        /// The entry to show, or `nil` while only the placeholder exists.
        public var entry: (any TimelineEntry)?
        /// True while a timeline request is in flight.
        public var isLoading: Bool
        /// The last failure, cleared by the next successful answer.
        public var lastFailure: ReloadFailure?
        /// Failures since the last success.
        public var consecutiveFailures: Int
        /// When the last timeline arrived.
        public var lastSuccess: Date?
        /// When the next automatic reload is due, if one is scheduled.
        public var nextReload: Date?
        /// Set when the daily budget moved the next reload later: when it will run.
        public var heldByBudgetUntil: Date?
    }

    /// The outcome of `deliver`.
    public enum Delivery: Equatable, Sendable {
        /// The answer was taken; `entryChanged` tells whether to redraw now.
        case accepted(entryChanged: Bool)
        /// The answer belongs to an older request (or the instance is gone) and was dropped.
        case stale
    }

    public private(set) var configuration: SchedulerConfiguration
    /// Records by `rawValue - 1`; nil once removed.
    var slots: [Instance?] = []
    var liveCount = 0
    /// Live instances per kind: a kind's `WidgetCenter` burst grows with its panels.
    var kindCounts: [String: Int] = [:]
    var queue = DeadlineQueue<(id: WidgetInstanceID, version: UInt64)>()
    private var nextID = 0
    var random: SplitMix64
    /// When true, reloads the system would start wait; entries still advance.
    public internal(set) var automaticReloadsPaused = false
    /// The highest relevance score each kind's provider has given: relevance is relative
    /// within one kind (WidgetKit's scores are the provider's own scale), so two panels of one
    /// kind compare by their scores, and stacks compare kinds fairly.
    var kindMaximumRelevance: [String: Float] = [:]
    /// Shared by copies of this scheduler until one changes: then that one copies the records.
    private var owner = Owner()

    /// `WidgetCenter` reloads allowed back to back within one minimum interval.
    public static let centerBurst = 3
    /// Least time between policy reloads of an instance computed locally (`pausable: false`),
    /// which `minimumReloadInterval` does not hold back.
    public static let localReloadFloor: TimeInterval = 1
    /// The push budget: push reloads of one instance at most this often (a burst coalesces into
    /// one now and one after this), never counted against the daily budget.
    public static let pushInterval: TimeInterval = 1

    public init(configuration: SchedulerConfiguration = .init()) {
        self.configuration = configuration
        random = SplitMix64(seed: configuration.jitterSeed)
    }

    // MARK: Instances

    /// Adds an instance; its first timeline is requested at the next `advance(to:)`.
    ///
    /// - Parameter pausable: false for an instance whose timelines are computed locally (a
    ///   clock): its reloads go on while automatic reloads are paused and are free of the daily
    ///   budget (both are about fetching).
    ///
    /// - Parameter requestTimeout: how long this instance's calls may take, when longer than
    ///   the configuration's `requestTimeout` (the provider's own limit, see
    ///   `TimelineProvider.requestTimeout`).
    public mutating func add(kind: String, now: Date, pausable: Bool = true, requestTimeout: TimeInterval? = nil) -> WidgetInstanceID {
        makeUnique()
        nextID += 1
        let id = WidgetInstanceID(rawValue: nextID)
        let instance = Instance(kind: kind, pausable: pausable)
        instance.requestTimeout = max(configuration.requestTimeout, requestTimeout ?? 0)
        instance.reloadDue = now
        instance.reloadReason = .initial
        slots.append(instance)
        liveCount += 1
        kindCounts[kind, default: 0] += 1
        reschedule(id)
        return id
    }

    /// Removes an instance; answers for it are dropped from now on.
    public mutating func remove(_ id: WidgetInstanceID) {
        makeUnique()
        guard let removed = instance(id) else { return }
        kindCounts[removed.kind, default: 1] -= 1
        if kindCounts[removed.kind] == 0 { kindCounts[removed.kind] = nil }
        slots[id.rawValue - 1] = nil
        liveCount -= 1
        compactIfNeeded()
        dropStaleHead()
    }

    /// The instances of a kind, in the order they were added.
    public func instances(ofKind kind: String) -> [WidgetInstanceID] {
        slots.indices.filter { slots[$0]?.kind == kind }.map { WidgetInstanceID(rawValue: $0 + 1) }
    }

    /// All instances, in the order they were added.
    public var allInstances: [WidgetInstanceID] { slots.indices.filter { slots[$0] != nil }.map { WidgetInstanceID(rawValue: $0 + 1) } }

    func instance(_ id: WidgetInstanceID) -> Instance? {
        let index = id.rawValue - 1
        return index >= 0 && index < slots.count ? slots[index] : nil
    }

    /// What the panel of `id` should show.
    public func status(of id: WidgetInstanceID) -> Status? {
        guard let i = instance(id) else { return nil }
        return Status(
            entry: i.shown,
            isLoading: i.inFlight != nil,
            lastFailure: i.lastFailure,
            consecutiveFailures: i.consecutiveFailures,
            lastSuccess: i.lastSuccess,
            nextReload: i.inFlight == nil ? i.reloadDue : nil,
            heldByBudgetUntil: i.inFlight == nil && i.reloadDue != nil ? i.heldByBudgetUntil : nil
        )
    }

    /// How relevant the entry shown for `id` is at `now`, on 0…1, for comparing widgets (the
    /// Smart Stack): the entry's score divided by the highest score its kind's provider has
    /// given to any of its instances, as WidgetKit's scores are relative within one provider
    /// (one kind), not one panel. Nil when the entry has no
    /// relevance or its `duration` has run out; 0 for a score of 0 or less.
    public func relevance(of id: WidgetInstanceID, now: Date) -> Float? {
        guard let i = instance(id), let entry = i.shown, let relevance = entry.relevance else { return nil }
        if relevance.duration > 0, now >= entry.date + relevance.duration { return nil }
        guard relevance.score.isFinite, relevance.score > 0, let maximum = kindMaximumRelevance[i.kind], maximum > 0 else { return 0 }
        return min(1, relevance.score / maximum)
    }

    /// The earliest moment anything changes: an entry's date, a reload, or a timeout.
    /// `nil` when nothing is scheduled (sleep until a message arrives).
    public var nextWakeDate: Date? { queue.first?.date }

    /// Changes the rules; deadlines already computed stay, new ones use the new rules.
    public mutating func updateConfiguration(_ configuration: SchedulerConfiguration) {
        self.configuration = configuration
    }

    // MARK: Time

    /// Moves to `now`: advances entries, fails timed-out requests, starts due reloads.
    public mutating func advance(to now: Date) -> SchedulerChanges {
        makeUnique()
        var changes = SchedulerChanges()
        while let top = queue.first, top.date <= now {
            queue.popFirst()
            let (id, version) = top.value
            guard let instance = instance(id), instance.version == version else { continue }
            instance.queuedDate = nil
            process(instance, id: id, now: now, changes: &changes)
            // Re-queued before the write-back: one dictionary lookup and one copy fewer per
            // event than `reschedule(id)` (the scheduler's hot path).
            requeue(id, instance)
            compactIfNeeded()
        }
        dropStaleHead()
        return changes
    }

    private mutating func process(_ i: Instance, id: WidgetInstanceID, now: Date, changes: inout SchedulerChanges) {
        if advanceEntries(i, now: now) { changes.entryChanged.append(id) }
        if let flight = i.inFlight, flight.deadline <= now {
            i.inFlight = nil
            let seconds = Int(i.requestTimeout.rounded())
            recordFailure(i, message: "timed out after \(seconds) s", now: now)
            changes.timedOut.append(id)
        }
        if i.inFlight == nil, let due = i.reloadDue, due <= now, mayStart(i) {
            changes.reloads.append(start(i, id: id, now: now))
        }
    }

    /// Moves `nextIndex` past every entry whose date has come; true if the shown entry changed.
    func advanceEntries(_ i: Instance, now: Date) -> Bool {
        let before = i.nextIndex
        while i.nextIndex < i.entryDates.count, i.entryDates[i.nextIndex] <= now { i.nextIndex += 1 }
        guard i.nextIndex != before else { return false }
        i.shown = i.entries[i.nextIndex - 1]
        return true
    }

    func mayStart(_ i: Instance) -> Bool {
        !automaticReloadsPaused || !i.pausable || i.reloadReason == .user || i.reloadReason == .initial || i.reloadReason == .answer
    }

    private mutating func start(_ i: Instance, id: WidgetInstanceID, now: Date) -> ReloadRequest {
        i.generation += 1
        let isUser = i.reloadReason == .user
        i.inFlight = InFlight(generation: i.generation, deadline: now + i.requestTimeout, isUserInitiated: isUser)
        i.history.recordStart(i.reloadReason, budgeted: countsAgainstBudget(i, reason: i.reloadReason),
                              now: now, minimumInterval: configuration.minimumReloadInterval)
        i.reloadDue = nil
        i.heldByBudgetUntil = nil
        return ReloadRequest(instance: id, generation: i.generation, reason: i.reloadReason)
    }

    /// Copies the instances' records if another copy of this scheduler shares them: first thing
    /// in every change.
    mutating func makeUnique() {
        guard !isKnownUniquelyReferenced(&owner) else { return }
        owner = Owner()
        slots = slots.map { $0?.copy() }
    }

    /// Whose the records are (see `makeUnique`).
    private final class Owner {}
}
