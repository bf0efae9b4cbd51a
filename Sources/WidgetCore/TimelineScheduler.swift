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
/// - the daily budget counts only policy reloads and `WidgetCenter` reloads that do not answer
///   a user reload (those within `userAnswerWindow` of one); retries, environment reloads
///   (clock set, panel resized) and instances computed locally (`pausable: false`: clocks)
///   are free of it. A reload the budget holds back is reported in `Status.heldByBudgetUntil`.
///
/// Every event costs O(log n) in the number of instances: one deadline per instance lives in
/// a priority queue keyed by (date, insertion order); superseded deadlines are skipped lazily.
/// Not thread-safe: use it from the host's serial loop.
public final class TimelineScheduler {
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

    private struct InFlight {
        var generation: UInt64
        var deadline: Date
        var isUserInitiated: Bool
    }

    /// One instance's record; a class so the hot path changes it in place (no copy out and back).
    private final class Instance {
        let kind: String
        /// Sorted entries of the current timeline; `entries[..<nextIndex]` have come.
        var entries: [any TimelineEntry] = []
        /// `entries`' dates, read on every event without a protocol call.
        var entryDates: [Date] = []
        var nextIndex = 0
        var shown: (any TimelineEntry)?
        var reloadDue: Date?
        var reloadReason: ReloadReason = .initial
        var inFlight: InFlight?
        /// A reload asked for while one was in flight: the strongest reason asked
        /// (user, then environment, then `WidgetCenter`).
        var followUp: ReloadReason?
        var generation: UInt64 = 0
        var lastReloadStart: Date?
        /// Starts of the `WidgetCenter` reloads within the last minimum interval (a burst of
        /// `centerBurst` is allowed, then one per interval).
        var recentCenterReloads: [Date] = []
        /// When the user last reloaded this instance: the data that reload fetches comes back as
        /// `WidgetCenter` reloads, which then answer the user and are not held back.
        var lastUserReload: Date?
        /// Start times of system-initiated reloads within the last 24 hours (budget).
        var systemReloads: [Date] = []
        var backoffUntil: Date?
        /// When the budget moved `reloadDue` later: that date.
        var heldByBudgetUntil: Date?
        var consecutiveFailures = 0
        var lastFailure: ReloadFailure?
        var lastSuccess: Date?
        /// The highest relevance score this instance's provider has given (0: none yet).
        var maximumRelevanceScore: Float = 0
        /// Bumped whenever the instance's deadline changes; older queue items are stale.
        var version: UInt64 = 0
        var queuedDate: Date?

        /// False for widgets whose timelines are computed locally (a clock): pausing automatic
        /// reloads and the daily budget, which are about network work, must not stop them.
        let pausable: Bool

        init(kind: String, pausable: Bool) {
            self.kind = kind
            self.pausable = pausable
        }
    }

    public private(set) var configuration: SchedulerConfiguration
    /// Records by `rawValue - 1`; nil once removed.
    private var slots: [Instance?] = []
    private var liveCount = 0
    private var queue = DeadlineQueue<(id: WidgetInstanceID, version: UInt64)>()
    private var nextID = 0
    private var random: SplitMix64
    /// When true, reloads the system would start wait; entries still advance.
    public private(set) var automaticReloadsPaused = false
    /// The last user reload of any instance: `WidgetCenter` reloads soon after answer it.
    private var lastUserReloadAnywhere: Date?

    /// `WidgetCenter` reloads allowed back to back within one minimum interval.
    public static let centerBurst = 3
    /// Least time between policy reloads of an instance computed locally (`pausable: false`),
    /// which `minimumReloadInterval` does not hold back.
    public static let localReloadFloor: TimeInterval = 1

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
    public func add(kind: String, now: Date, pausable: Bool = true) -> WidgetInstanceID {
        nextID += 1
        let id = WidgetInstanceID(rawValue: nextID)
        let instance = Instance(kind: kind, pausable: pausable)
        instance.reloadDue = now
        instance.reloadReason = .initial
        slots.append(instance)
        liveCount += 1
        reschedule(id)
        return id
    }

    /// Removes an instance; answers for it are dropped from now on.
    public func remove(_ id: WidgetInstanceID) {
        guard instance(id) != nil else { return }
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

    private func instance(_ id: WidgetInstanceID) -> Instance? {
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
    /// Smart Stack): the entry's score divided by the highest score its provider has given,
    /// as WidgetKit's scores are relative within one provider. Nil when the entry has no
    /// relevance or its `duration` has run out; 0 for a score of 0 or less.
    public func relevance(of id: WidgetInstanceID, now: Date) -> Float? {
        guard let i = instance(id), let entry = i.shown, let relevance = entry.relevance else { return nil }
        if relevance.duration > 0, now >= entry.date + relevance.duration { return nil }
        guard relevance.score.isFinite, relevance.score > 0, i.maximumRelevanceScore > 0 else { return 0 }
        return min(1, relevance.score / i.maximumRelevanceScore)
    }

    /// The earliest moment anything changes: an entry's date, a reload, or a timeout.
    /// `nil` when nothing is scheduled (sleep until a message arrives).
    public var nextWakeDate: Date? { queue.first?.date }

    /// Changes the rules; deadlines already computed stay, new ones use the new rules.
    public func updateConfiguration(_ configuration: SchedulerConfiguration) {
        self.configuration = configuration
    }

    // MARK: Time

    /// Moves to `now`: advances entries, fails timed-out requests, starts due reloads.
    public func advance(to now: Date) -> SchedulerChanges {
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

    private func process(_ i: Instance, id: WidgetInstanceID, now: Date, changes: inout SchedulerChanges) {
        if advanceEntries(i, now: now) { changes.entryChanged.append(id) }
        if let flight = i.inFlight, flight.deadline <= now {
            i.inFlight = nil
            let seconds = Int(configuration.requestTimeout.rounded())
            recordFailure(i, message: "timed out after \(seconds) s", now: now)
            changes.timedOut.append(id)
        }
        if i.inFlight == nil, let due = i.reloadDue, due <= now, mayStart(i) {
            changes.reloads.append(start(i, id: id, now: now))
        }
    }

    /// Moves `nextIndex` past every entry whose date has come; true if the shown entry changed.
    private func advanceEntries(_ i: Instance, now: Date) -> Bool {
        let before = i.nextIndex
        while i.nextIndex < i.entryDates.count, i.entryDates[i.nextIndex] <= now { i.nextIndex += 1 }
        guard i.nextIndex != before else { return false }
        i.shown = i.entries[i.nextIndex - 1]
        return true
    }

    private func mayStart(_ i: Instance) -> Bool {
        !automaticReloadsPaused || !i.pausable || i.reloadReason == .user || i.reloadReason == .initial
    }

    private func start(_ i: Instance, id: WidgetInstanceID, now: Date) -> ReloadRequest {
        i.generation += 1
        let isUser = i.reloadReason == .user
        i.inFlight = InFlight(generation: i.generation, deadline: now + configuration.requestTimeout, isUserInitiated: isUser)
        if countsAgainstBudget(i, reason: i.reloadReason, now: now) {
            i.systemReloads.removeAll { $0 <= now - 86_400 }
            i.systemReloads.append(now)
        }
        i.lastReloadStart = now
        if i.reloadReason == .user {
            i.lastUserReload = now
            lastUserReloadAnywhere = now
        }
        if i.reloadReason == .widgetCenter {
            i.recentCenterReloads.removeAll { $0 <= now - configuration.minimumReloadInterval }
            i.recentCenterReloads.append(now)
        }
        i.reloadDue = nil
        i.heldByBudgetUntil = nil
        return ReloadRequest(instance: id, generation: i.generation, reason: i.reloadReason)
    }

    // MARK: Answers

    /// True while request `generation` of `id` is in flight: not answered, failed or timed out.
    public func isAwaiting(_ id: WidgetInstanceID, generation: UInt64) -> Bool {
        instance(id)?.inFlight?.generation == generation
    }

    /// Takes a provider's timeline for request `generation` of `id`.
    ///
    /// Entries are sorted by date; those already past collapse to the newest, which is shown at
    /// once. An empty timeline keeps the entry shown and nothing ahead of it (the old timeline's
    /// future entries belonged to the answer it replaces). The policy sets the next reload.
    public func deliver(_ timeline: AnyTimeline, to id: WidgetInstanceID, generation: UInt64, now: Date) -> Delivery {
        guard let i = instance(id), let flight = i.inFlight, flight.generation == generation else { return .stale }
        i.inFlight = nil
        i.consecutiveFailures = 0
        i.lastFailure = nil
        i.backoffUntil = nil
        i.lastSuccess = now

        var changed = false
        for entry in timeline.entries {
            if let score = entry.relevance?.score, score.isFinite, score > i.maximumRelevanceScore {
                i.maximumRelevanceScore = score
            }
        }
        if !timeline.entries.isEmpty {
            // Stable sort: entries with equal dates keep the provider's order. Providers almost
            // always answer in order, so check first: sorting tuples of existentials is the
            // most expensive step of a delivery (see README "Performance").
            let inOrder = zip(timeline.entries, timeline.entries.dropFirst()).allSatisfy { $0.date <= $1.date }
            let sorted = inOrder ? timeline.entries : timeline.entries.enumerated().sorted {
                ($0.element.date, $0.offset) < ($1.element.date, $1.offset)
            }.map(\.element)
            let past = sorted.partitionPoint { $0.date > now }
            i.entries = past > 0 ? Array(sorted[(past - 1)...]) : sorted
            i.entryDates = i.entries.map(\.date)
            i.nextIndex = 0
            changed = advanceEntries(i, now: now)
        } else {
            i.entries = i.shown.map { [$0] } ?? []
            i.entryDates = i.entries.map(\.date)
            i.nextIndex = i.entries.count
        }

        switch timeline.policy {
        case .atEnd:
            if let last = i.entries.last, last.date > now {
                scheduleSystemReload(i, at: last.date, reason: .policy, now: now)
            } else {
                scheduleSystemReload(i, at: now + configuration.minimumReloadInterval, reason: .policy, now: now)
            }
        case .after(let date):
            let due = date > now ? date : now + configuration.minimumReloadInterval
            scheduleSystemReload(i, at: due, reason: .policy, now: now)
        case .never:
            i.reloadDue = nil
        }
        takeFollowUp(i, now: now)
        reschedule(id)
        return .accepted(entryChanged: changed)
    }

    /// Records that request `generation` of `id` failed; the entry shown stays.
    ///
    /// - Returns: false if the answer was stale and dropped.
    @discardableResult
    public func fail(_ id: WidgetInstanceID, generation: UInt64, message: String, now: Date) -> Bool {
        guard let i = instance(id), let flight = i.inFlight, flight.generation == generation else { return false }
        i.inFlight = nil
        recordFailure(i, message: message, now: now)
        reschedule(id)
        return true
    }

    private func recordFailure(_ i: Instance, message: String, now: Date) {
        i.consecutiveFailures += 1
        i.lastFailure = ReloadFailure(message: message, date: now)
        let factor = Double(1 << min(i.consecutiveFailures - 1, 30))
        let ceiling = min(configuration.retryMaxDelay, configuration.retryBaseDelay * factor)
        // "Equal jitter": at least half the delay, so retries spread out but never hurry.
        let delay = ceiling / 2 + ceiling / 2 * random.nextUnit()
        i.backoffUntil = now + delay
        i.reloadDue = nil
        scheduleSystemReload(i, at: now + delay, reason: .retry, now: now)
        takeFollowUp(i, now: now)
    }

    private func takeFollowUp(_ i: Instance, now: Date) {
        guard let reason = i.followUp else { return }
        i.followUp = nil
        switch reason {
        case .user:
            i.backoffUntil = nil
            i.reloadDue = now
            i.reloadReason = .user
            i.heldByBudgetUntil = nil
        case .environment:
            scheduleEnvironmentReload(i, now: now)
        default:
            scheduleSystemReload(i, at: now, reason: .widgetCenter, now: now)
        }
    }

    /// Keeps the strongest reason of reloads asked for during a request.
    private func addFollowUp(_ i: Instance, _ reason: ReloadReason) {
        func rank(_ r: ReloadReason?) -> Int { r == .user ? 3 : r == .environment ? 2 : r == nil ? 0 : 1 }
        if rank(reason) > rank(i.followUp) { i.followUp = reason }
    }

    // MARK: Requests

    /// Asks for a new timeline for `id`, as `WidgetCenter` or the user does.
    ///
    /// While a request is in flight, reloads coalesce into one follow-up. A user-initiated
    /// reload starts at the next `advance(to:)` whatever the budget or backoff; a system one
    /// waits for the minimum interval, the daily budget and any retry backoff.
    public func requestReload(_ id: WidgetInstanceID, userInitiated: Bool, now: Date) {
        guard let i = instance(id) else { return }
        if i.inFlight != nil {
            addFollowUp(i, userInitiated ? .user : .widgetCenter)
        } else if userInitiated {
            i.backoffUntil = nil
            i.reloadDue = now
            i.reloadReason = .user
            i.heldByBudgetUntil = nil
        } else if i.reloadReason != .user || i.reloadDue == nil {
            scheduleSystemReload(i, at: now, reason: .widgetCenter, now: now)
        }
        reschedule(id)
    }

    /// Asks for new timelines for every instance of `kind` (system initiated unless told).
    public func requestReload(ofKind kind: String, userInitiated: Bool = false, now: Date) {
        for id in instances(ofKind: kind) { requestReload(id, userInitiated: userInitiated, now: now) }
    }

    /// Asks for new timelines for every instance.
    public func requestReloadAll(userInitiated: Bool = false, now: Date) {
        for id in allInstances { requestReload(id, userInitiated: userInitiated, now: now) }
    }

    /// Asks for a new timeline for `id` because its environment changed (the wall clock was
    /// set, the panel's size changed), as WidgetKit does on such changes.
    ///
    /// It starts at the next `advance(to:)`, free of the minimum interval and the daily
    /// budget, but after any retry wait (it is not the user's), and as a follow-up while a
    /// request is in flight. Providers see `isUserInitiated == false`.
    public func requestEnvironmentReload(_ id: WidgetInstanceID, now: Date) {
        guard let i = instance(id) else { return }
        if i.inFlight != nil {
            addFollowUp(i, .environment)
        } else {
            scheduleEnvironmentReload(i, now: now)
        }
        reschedule(id)
    }

    /// `requestEnvironmentReload` for every instance.
    public func requestEnvironmentReloadAll(now: Date) {
        for id in allInstances { requestEnvironmentReload(id, now: now) }
    }

    private func scheduleEnvironmentReload(_ i: Instance, now: Date) {
        let due = max(now, i.backoffUntil ?? now)
        if let existing = i.reloadDue, existing <= due { return }
        i.reloadDue = due
        i.reloadReason = .environment
        i.heldByBudgetUntil = nil
    }

    /// Pauses or resumes reloads the system would start; user reloads still run.
    public func setAutomaticReloadsPaused(_ paused: Bool) {
        guard paused != automaticReloadsPaused else { return }
        automaticReloadsPaused = paused
        for id in allInstances { reschedule(id) }
    }

    /// Schedules a system reload at `desired`, moved later as the rules require, or earlier
    /// than one already scheduled.
    private func scheduleSystemReload(_ i: Instance, at desired: Date, reason: ReloadReason, now: Date) {
        var due = desired
        if reason == .widgetCenter {
            // Data a background session just delivered should show at once, even right after
            // the reload that fetched it, and several sessions may finish together: a burst
            // of `centerBurst` WidgetCenter reloads per interval is allowed, so a widget asking
            // in a loop is still held to one per interval.
            let recent = i.recentCenterReloads.filter { $0 > now - configuration.minimumReloadInterval }
            let answersUser = i.lastUserReload.map { $0 > now - configuration.minimumReloadInterval } ?? false
            if recent.count >= Self.centerBurst && !answersUser {
                due = max(due, recent[recent.count - Self.centerBurst] + configuration.minimumReloadInterval)
            }
        } else if let last = i.lastReloadStart {
            // The minimum interval spares servers; an instance computed locally (a system
            // monitor every 2 s) only has to be kept from spinning.
            due = max(due, last + (i.pausable ? configuration.minimumReloadInterval : Self.localReloadFloor))
        }
        if let backoff = i.backoffUntil { due = max(due, backoff) }
        var heldByBudget: Date?
        if let budget = configuration.dailyReloadBudget, countsAgainstBudget(i, reason: reason, now: now) {
            let recent = i.systemReloads.filter { $0 > now - 86_400 }
            if recent.count >= budget {
                let allowed = recent[recent.count - budget] + 86_400
                if allowed > due {
                    due = allowed
                    heldByBudget = allowed
                }
            }
        }
        if let existing = i.reloadDue, existing <= due { return }
        i.reloadDue = due
        i.reloadReason = reason
        i.heldByBudgetUntil = heldByBudget
    }

    /// Whether a reload for `reason` is counted against (and so held back by) the daily
    /// budget: only policy reloads and `WidgetCenter` reloads that do not answer a user
    /// reload, of instances that do network work.
    private func countsAgainstBudget(_ i: Instance, reason: ReloadReason, now: Date) -> Bool {
        guard i.pausable else { return false }
        switch reason {
        case .policy: return true
        case .widgetCenter: return !answersUser(now: now)
        case .initial, .user, .retry, .environment: return false
        }
    }

    /// True within `userAnswerWindow` of the last user reload of any instance: a
    /// `WidgetCenter` reload then brings data the user asked for (the leaderboard's board,
    /// and the hero cards that read it).
    private func answersUser(now: Date) -> Bool {
        guard let last = lastUserReloadAnywhere else { return false }
        return now >= last && now.timeIntervalSince(last) <= configuration.userAnswerWindow
    }

    // MARK: Queue

    /// Puts the instance's next deadline in the queue, superseding its previous one.
    private func reschedule(_ id: WidgetInstanceID) {
        guard let i = instance(id), requeue(id, i) else { return }
        compactIfNeeded()
        dropStaleHead()
    }

    /// Pushes the next deadline of `i` (not yet written back) if it changed; true if it did.
    @discardableResult
    private func requeue(_ id: WidgetInstanceID, _ i: Instance) -> Bool {
        var next: Date?
        func consider(_ d: Date?) { if let d, next.map({ d < $0 }) ?? true { next = d } }
        if i.nextIndex < i.entryDates.count { consider(i.entryDates[i.nextIndex]) }
        consider(i.inFlight?.deadline)
        if i.inFlight == nil, mayStart(i) { consider(i.reloadDue) }
        guard next != i.queuedDate else { return false }
        i.version &+= 1
        i.queuedDate = next
        if let next { queue.push((id, i.version), at: next) }
        return true
    }

    private func compactIfNeeded() {
        guard queue.count > 64, queue.count > 2 * liveCount else { return }
        queue.retain { item in instance(item.value.id)?.version == item.value.version }
    }

    /// Pops superseded items at the head so `nextWakeDate` is always a real deadline.
    private func dropStaleHead() {
        while let top = queue.first, instance(top.value.id)?.version != top.value.version {
            queue.popFirst()
        }
    }
}

extension Array {
    /// The index of the first element for which `isAfter` is true, by binary search; the
    /// array must be partitioned (all false, then all true).
    fileprivate func partitionPoint(_ isAfter: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if isAfter(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
