import FoundationEssentials

/// The timelines of a host's widgets, as a value: the `TimelineScheduler` plus what is needed
/// to act on its decisions — each instance's provider and its context, the one call running
/// per instance, a request held behind a cancelled call, the wake-up armed.
///
/// Every change takes the time it happens at (`now`) and reads no clock; what it decides is
/// kept as output — `TimelineEffect`s to run (start a call, cancel one, arm the wake-up, publish
/// the widgets `WidgetCenter` lists) and the instances whose panel must be redrawn — taken with
/// `takeOutput()`. Nothing here runs a task or touches a timer: a host runs the effects
/// (`TimelineDriver` standalone, the dashboard's program) and brings the answers back in
/// (`receive`, `wake`, `apply`). A copy is independent of the original, so the dashboard's
/// state, which holds one, is a value too.
///
/// An instance has at most one provider call running. A call that times out is cancelled and
/// its late answer is dropped by its generation; a request that comes due while the cancelled
/// call still runs (a provider that ignores cancellation) waits for it to end and is dropped if
/// the scheduler has meanwhile given up on it.
public struct TimelineState {
    struct Slot {
        var kind: String
        var provider: AnyTimelineProvider
        var family: WidgetFamily
        var size: CellSize
        /// What `WidgetCenter.currentConfigurations()` reports; nil for the host's own instances.
        var info: WidgetCenter.WidgetInfo?
        /// Its provider runs on the loop (cheap, never blocks; `WidgetManifest.runsOnLoop`).
        var onLoop = false
    }

    public private(set) var scheduler: TimelineScheduler
    private var slots: [WidgetInstanceID: Slot] = [:]
    /// The generation of each instance's running provider call (at most one).
    private var running: [WidgetInstanceID: UInt64] = [:]
    /// Requests that came due while the instance's previous call (timed out and cancelled, but
    /// not yet returned) still ran; started when it returns.
    private var held: [WidgetInstanceID: ReloadRequest] = [:]
    /// The wake-up last asked for (`.arm`).
    public private(set) var armedDate: Date?
    private var batchDepth = 0
    /// What was decided since the last `takeOutput()`.
    private var effects: [TimelineEffect] = []
    private var changed: Set<WidgetInstanceID> = []
    /// The rendering mode every provider call's context carries (the host's, fixed for a run).
    public var renderingMode: WidgetRenderingMode = .fullColor

    public init(configuration: SchedulerConfiguration = .init()) {
        scheduler = TimelineScheduler(configuration: configuration)
    }

    // MARK: Instances

    /// Adds a widget instance; its first timeline is requested at once (at the end of a
    /// `beginBatch()`…`endBatch(now:)` pair, if inside one). See `TimelineDriver.add`.
    public mutating func add(kind: String, family: WidgetFamily, size: CellSize, provider: AnyTimelineProvider,
                             pausable: Bool = true, info: WidgetCenter.WidgetInfo? = nil, listed: Bool = true,
                             onLoop: Bool = false, now: Date) -> WidgetInstanceID {
        let id = scheduler.add(kind: kind, now: now, pausable: pausable, requestTimeout: provider.requestTimeout)
        let listing = listed ? (info ?? WidgetCenter.WidgetInfo(kind: kind, family: family, title: kind)) : nil
        slots[id] = Slot(kind: kind, provider: provider, family: family, size: size, info: listing, onLoop: onLoop)
        publish()
        tick(now: now)
        return id
    }

    /// Removes an instance; a late answer for it is dropped.
    public mutating func remove(_ id: WidgetInstanceID, now: Date) {
        scheduler.remove(id)
        slots[id] = nil
        if running[id] != nil { effects.append(.cancel(id)) }
        held[id] = nil
        publish()
        rearm()
    }

    /// The instance's panel has a new size, or is drawn at another family (zoomed): a change
    /// asks the provider for a timeline laid out for it (an environment reload: free of the
    /// budget, not the user's). `family` nil keeps the family.
    public mutating func resize(_ id: WidgetInstanceID, to size: CellSize, family: WidgetFamily? = nil, now: Date) {
        guard let slot = slots[id], slot.size != size || (family.map { $0 != slot.family } ?? false) else { return }
        slots[id]?.size = size
        if let family { slots[id]?.family = family }
        scheduler.requestEnvironmentReload(id, now: now)
        tick(now: now)
    }

    /// The placeholder entry of an instance (synchronous, for the first frame).
    public func placeholder(for id: WidgetInstanceID) -> (any TimelineEntry)? {
        guard let slot = slots[id] else { return nil }
        return slot.provider.placeholder(in: context(slot, userInitiated: false))
    }

    public func status(of id: WidgetInstanceID) -> TimelineScheduler.Status? { scheduler.status(of: id) }

    /// Whether `id` is one of the instances (not removed).
    public func contains(_ id: WidgetInstanceID) -> Bool { slots[id] != nil }

    /// Provider calls running (cancelled ones included, until they return).
    public var runningProviderCalls: Int { running.count }

    // MARK: Requests

    /// Reloads one instance; the `r` key passes `userInitiated: true`.
    public mutating func reload(_ id: WidgetInstanceID, userInitiated: Bool, now: Date) {
        scheduler.requestReload(id, userInitiated: userInitiated, now: now)
        tick(now: now)
    }

    /// Reloads every instance; the `R` key passes `userInitiated: true`.
    public mutating func reloadAll(userInitiated: Bool, now: Date) {
        scheduler.requestReloadAll(userInitiated: userInitiated, now: now)
        tick(now: now)
    }

    /// Reloads every instance because the environment changed (the wall clock was set): not
    /// user initiated, so a retry wait and a server's Retry-After stay, but free of the budget.
    ///
    /// - Parameter step: how far the wall clock was set (negative: back); the scheduler's
    ///   history and waits move with it first (`TimelineScheduler.rebase`), so a retry wait
    ///   stays the length it was, not that plus the step.
    public mutating func reloadAllForEnvironment(clockStep step: TimeInterval = 0, now: Date) {
        scheduler.rebase(by: step)
        scheduler.requestEnvironmentReloadAll(now: now)
        tick(now: now)
    }

    /// Hides or shows instances (a page not shown): see `TimelineScheduler.setHidden`.
    public mutating func setHidden(_ ids: some Sequence<WidgetInstanceID>, _ hidden: Bool, now: Date) {
        for id in ids { scheduler.setHidden(id, hidden) }
        tick(now: now)
    }

    /// Applies new rules (a reloaded config) to reloads scheduled from now on.
    public mutating func updateConfiguration(_ configuration: SchedulerConfiguration) {
        scheduler.updateConfiguration(configuration)
    }

    public mutating func setAutomaticReloadsPaused(_ paused: Bool, now: Date) {
        scheduler.setAutomaticReloadsPaused(paused)
        tick(now: now)
    }

    /// Applies `WidgetCenter` requests (taken with `takeRequests()`).
    public mutating func apply(_ requests: [WidgetCenter.Request], now: Date) {
        guard !requests.isEmpty else { return }
        for request in requests {
            switch request {
            case .all: scheduler.requestReloadAll(now: now)
            case .kind(let kind): scheduler.requestReload(ofKind: kind, now: now)
            case .caused(let kind, let cause): scheduler.requestReload(ofKind: kind, cause: cause, now: now)
            }
        }
        tick(now: now)
    }

    // MARK: Inputs

    /// The wake-up armed (`.arm`) came.
    public mutating func wake(now: Date) {
        armedDate = nil
        tick(now: now)
    }

    /// Takes a provider's answer: the scheduler keeps it unless its generation is stale.
    public mutating func receive(_ answer: ProviderAnswer, now: Date) {
        let request = answer.request
        let id = request.instance
        if running[id] == request.generation { running[id] = nil }
        let accepted: Bool
        switch answer.result {
        case .success(let timeline):
            accepted = scheduler.deliver(timeline, to: id, generation: request.generation, now: now) != .stale
        case .failure(let error):
            accepted = scheduler.fail(id, generation: request.generation, message: TimelineDriver.describe(error), now: now)
        }
        if accepted { changed.insert(id) }
        if running[id] == nil, let next = held.removeValue(forKey: id), scheduler.isAwaiting(id, generation: next.generation) {
            start(next)
        }
        tick(now: now)
    }

    // MARK: Deciding

    /// Adds and resizes inside a batch advance once, at its end: the first requests of
    /// instances added inside go out with the sizes set inside, not 0×0.
    public mutating func beginBatch() { batchDepth += 1 }

    public mutating func endBatch(now: Date) {
        batchDepth -= 1
        tick(now: now)
    }

    /// Advances to `now`, starts due requests, notes changes, re-arms the wake-up.
    public mutating func tick(now: Date) {
        guard batchDepth == 0 else { return }
        let decided = scheduler.advance(to: now)
        // The panel says "timed out"; the provider's work is cancelled, its answer dropped.
        for id in decided.timedOut where running[id] != nil { effects.append(.cancel(id)) }
        for request in decided.reloads { start(request) }
        changed.formUnion(decided.entryChanged)
        changed.formUnion(decided.timedOut)
        changed.formUnion(decided.reloads.map(\.instance))
        rearm()
    }

    /// What was decided since the last call: the effects in order, and the instances whose
    /// panels changed (sorted).
    public mutating func takeOutput() -> (effects: [TimelineEffect], changed: [WidgetInstanceID]) {
        defer {
            effects = []
            changed = []
        }
        return (effects, changed.sorted())
    }

    private mutating func start(_ request: ReloadRequest) {
        guard let slot = slots[request.instance] else { return }
        guard running[request.instance] == nil else {
            held[request.instance] = request  // one call per instance: after the running one
            return
        }
        running[request.instance] = request.generation
        effects.append(.start(ProviderCall(request: request, provider: slot.provider,
                                           context: context(slot, userInitiated: request.isUserInitiated), onLoop: slot.onLoop)))
    }

    private mutating func rearm() {
        let next = scheduler.nextWakeDate
        guard next != armedDate else { return }
        armedDate = next
        effects.append(.arm(next))
    }

    private mutating func publish() {
        effects.append(.publish(slots.sorted { $0.key < $1.key }.compactMap(\.value.info)))
    }

    private func context(_ slot: Slot, userInitiated: Bool) -> TimelineProviderContext {
        TimelineProviderContext(family: slot.family, size: slot.size, isPreview: false, isUserInitiated: userInitiated,
                                minimumReloadInterval: scheduler.configuration.minimumReloadInterval, renderingMode: renderingMode)
    }
}
