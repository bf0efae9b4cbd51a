import FoundationEssentials

/// Runs the scheduler against a clock and real providers on the host's serial loop.
///
/// The driver arms at most one one-shot wake-up, at the scheduler's `nextWakeDate`; when it
/// fires it advances the scheduler, starts the requested provider calls off the main actor,
/// and takes their answers back on the main actor, tagged with their generation. `WidgetCenter`
/// requests are drained here too. `onChange` tells the front end which panels to redraw.
///
/// An instance has at most one provider call running. A call that times out is cancelled
/// (`Task.cancel()`: a provider that awaits, or checks `Task.isCancelled`, stops) and its late
/// answer is dropped by its generation; a request that comes due while the cancelled call still
/// runs (a provider that ignores cancellation) waits for it to end and is dropped if the
/// scheduler has meanwhile given up on it. Calls of different instances run in parallel on
/// `providerExecutor`, so one slow provider holds up no other panel.
@MainActor
public final class TimelineDriver {
    private struct Slot {
        var kind: String
        var provider: AnyTimelineProvider
        var family: WidgetFamily
        var size: CellSize
        /// What `WidgetCenter.currentConfigurations()` reports; nil for the host's own instances.
        var info: WidgetCenter.WidgetInfo?
        /// Its provider runs on the main actor (cheap, never blocks; `WidgetManifest.runsOnLoop`).
        var onLoop = false
    }

    public let scheduler: TimelineScheduler
    public let clock: any WidgetClock
    public let center: WidgetCenter
    /// Called with the instances whose panel must be redrawn (entry, loading or error changed).
    public var onChange: ([WidgetInstanceID]) -> Void = { _ in }

    private var slots: [WidgetInstanceID: Slot] = [:]
    private var timer: ClockTimer?
    private var armedDate: Date?
    private struct Call {
        var task: Task<Void, Never>
        var generation: UInt64
    }

    /// The running provider call of each instance (at most one).
    private var calls: [WidgetInstanceID: Call] = [:]
    /// Requests that came due while the instance's previous call (timed out and cancelled, but
    /// not yet returned) still ran; started when it returns.
    private var held: [WidgetInstanceID: ReloadRequest] = [:]
    private let providerExecutor: (any TaskExecutor)?
    private let hop: @Sendable (@escaping @Sendable @MainActor () -> Void) -> Void
    private var batchDepth = 0

    /// - Parameters:
    ///   - hop: how a wake-up from another thread reaches the main actor; the host passes a
    ///     main-queue hop, the default uses a task.
    ///   - providerExecutor: where provider calls run; nil: Swift's global executor. The
    ///     dashboard passes a `ThreadTaskExecutor` with a few threads (see there why).
    public init(
        clock: any WidgetClock,
        configuration: SchedulerConfiguration = .init(),
        center: WidgetCenter = WidgetCenter(),
        providerExecutor: (any TaskExecutor)? = nil,
        hop: @escaping @Sendable (@escaping @Sendable @MainActor () -> Void) -> Void = { body in Task { @MainActor in body() } }
    ) {
        self.clock = clock
        self.center = center
        self.providerExecutor = providerExecutor
        self.hop = hop
        scheduler = TimelineScheduler(configuration: configuration)
        center.connect { [weak self] in
            hop { self?.drainCenter() }
        }
    }

    // MARK: Instances

    /// Adds a panel's widget; its first timeline is requested at once. `pausable: false` keeps
    /// its reloads going while automatic reloads are paused (see `TimelineScheduler.add`).
    ///
    /// - Parameter info: how `WidgetCenter.currentConfigurations()` lists it (title, options);
    ///   nil: the kind as title, no options. `listed: false` keeps the host's own instances
    ///   (the status bar's clock) out of that list.
    /// - Parameter onLoop: run the provider on the main actor instead of `providerExecutor`:
    ///   for providers that are cheap and never block (a reload then wakes no other thread).
    public func add(kind: String, family: WidgetFamily, size: CellSize, provider: AnyTimelineProvider,
                    pausable: Bool = true, info: WidgetCenter.WidgetInfo? = nil, listed: Bool = true,
                    onLoop: Bool = false) -> WidgetInstanceID {
        let id = scheduler.add(kind: kind, now: clock.now, pausable: pausable, requestTimeout: provider.requestTimeout)
        let listing = listed ? (info ?? WidgetCenter.WidgetInfo(kind: kind, family: family, title: kind)) : nil
        slots[id] = Slot(kind: kind, provider: provider, family: family, size: size, info: listing, onLoop: onLoop)
        publish()
        tick()
        return id
    }

    /// Removes a panel's widget; a late answer for it is dropped.
    public func remove(_ id: WidgetInstanceID) {
        scheduler.remove(id)
        slots[id] = nil
        calls[id]?.task.cancel()
        held[id] = nil
        publish()
        rearm()
    }

    /// Tells future requests the panel's new size; a change of size asks the provider for a
    /// timeline laid out for it (an environment reload: free of the budget, not the user's).
    public func resize(_ id: WidgetInstanceID, to size: CellSize) {
        guard let old = slots[id]?.size, old != size else { return }
        slots[id]?.size = size
        scheduler.requestEnvironmentReload(id, now: clock.now)
        tick()
    }

    /// The placeholder entry of an instance (synchronous, for the first frame).
    public func placeholder(for id: WidgetInstanceID) -> (any TimelineEntry)? {
        guard let slot = slots[id] else { return nil }
        return slot.provider.placeholder(in: context(slot, userInitiated: false))
    }

    public func status(of id: WidgetInstanceID) -> TimelineScheduler.Status? { scheduler.status(of: id) }

    // MARK: Requests

    /// Reloads one instance; the `r` key passes `userInitiated: true`.
    public func reload(_ id: WidgetInstanceID, userInitiated: Bool) {
        scheduler.requestReload(id, userInitiated: userInitiated, now: clock.now)
        tick()
    }

    /// Reloads every instance; the `R` key passes `userInitiated: true`.
    public func reloadAll(userInitiated: Bool) {
        scheduler.requestReloadAll(userInitiated: userInitiated, now: clock.now)
        tick()
    }

    /// Reloads every instance because the environment changed (the wall clock was set): not
    /// user initiated, so a retry wait and a server's Retry-After stay, but free of the budget.
    public func reloadAllForEnvironment() {
        scheduler.requestEnvironmentReloadAll(now: clock.now)
        tick()
    }

    /// Applies new rules (a reloaded config) to reloads scheduled from now on.
    public func updateConfiguration(_ configuration: SchedulerConfiguration) {
        scheduler.updateConfiguration(configuration)
    }

    public func setAutomaticReloadsPaused(_ paused: Bool) {
        scheduler.setAutomaticReloadsPaused(paused)
        tick()
    }

    /// Applies the reloads queued in the `WidgetCenter`.
    public func drainCenter() {
        let requests = center.takeRequests()
        guard !requests.isEmpty else { return }
        let now = clock.now
        for request in requests {
            switch request {
            case .all: scheduler.requestReloadAll(now: now)
            case .kind(let kind): scheduler.requestReload(ofKind: kind, now: now)
            }
        }
        tick()
    }

    /// Waits until no provider call is running (for tests and headless snapshots).
    public func settle() async {
        drainCenter()
        while let (id, call) = calls.first {
            await call.task.value
            // The answer comes to the main actor as a message after the task ends (`hop`).
            while calls[id]?.generation == call.generation { await Task.yield() }
            drainCenter()
        }
    }

    /// Waits until none of `ids` has a provider call running (for tests: the others may block).
    public func settle(_ ids: Set<WidgetInstanceID>) async {
        drainCenter()
        while let (id, call) = calls.first(where: { ids.contains($0.key) }) {
            await call.task.value
            while calls[id]?.generation == call.generation { await Task.yield() }
            drainCenter()
        }
    }

    /// Provider calls still running (cancelled ones included, until they return).
    public var runningProviderCalls: Int { calls.count }

    // MARK: Loop

    /// Runs `body` (adding instances, resizing them) and only then advances: the first
    /// requests of instances added inside go out with the sizes set inside, not 0×0.
    public func batch(_ body: () -> Void) {
        batchDepth += 1
        body()
        batchDepth -= 1
        if batchDepth == 0 { tick() }
    }

    /// Advances to the clock's now, starts due requests, reports changes, re-arms the wake-up.
    public func tick() {
        guard batchDepth == 0 else { return }
        let changes = scheduler.advance(to: clock.now)
        // The panel says "timed out"; the provider's work is cancelled, its answer dropped.
        for id in changes.timedOut { calls[id]?.task.cancel() }
        for request in changes.reloads { start(request) }
        var changed = changes.entryChanged + changes.timedOut + changes.reloads.map(\.instance)
        if !changed.isEmpty {
            changed = Array(Set(changed)).sorted()
            onChange(changed)
        }
        rearm()
    }

    private func start(_ request: ReloadRequest) {
        guard let slot = slots[request.instance] else { return }
        guard calls[request.instance] == nil else {
            held[request.instance] = request  // one call per instance: after the running one
            return
        }
        let provider = slot.provider
        let context = context(slot, userInitiated: request.isUserInitiated)
        // A provider that can answer this call on the loop at once does (`timelineOnLoop`): the
        // answer is taken as a message of the main actor's own queue — no thread is woken.
        if !slot.onLoop, let timeline = provider.timelineOnLoop(in: context) {
            let task = Task { @MainActor [weak self] in
                guard let self else { return }
                receive(.success(timeline), for: request)
            }
            calls[request.instance] = Call(task: task, generation: request.generation)
            return
        }
        let hop = self.hop
        // An instance on the loop runs its provider on the main queue's thread from start to
        // answer: no other thread is woken.
        let executor: (any TaskExecutor)? = slot.onLoop ? MainQueueExecutor.shared : providerExecutor
        let task = Task(executorPreference: executor) { [weak self] in
            let result: Result<AnyTimeline, any Error>
            do {
                result = .success(try await provider.timeline(in: context))
            } catch {
                result = .failure(error)
            }
            // One message to the main actor, and the task ends here: `await receive(…)` would
            // come back to the provider's executor afterwards, waking its thread once more
            // per reload for nothing.
            hop { self?.receive(result, for: request) }
        }
        calls[request.instance] = Call(task: task, generation: request.generation)
    }

    private func receive(_ result: Result<AnyTimeline, any Error>, for request: ReloadRequest) {
        let id = request.instance
        if calls[id]?.generation == request.generation { calls[id] = nil }
        let now = clock.now
        let accepted: Bool
        switch result {
        case .success(let timeline):
            accepted = scheduler.deliver(timeline, to: request.instance, generation: request.generation, now: now) != .stale
        case .failure(let error):
            accepted = scheduler.fail(request.instance, generation: request.generation, message: Self.describe(error), now: now)
        }
        if accepted { onChange([request.instance]) }
        if calls[id] == nil, let next = held.removeValue(forKey: id),
           scheduler.isAwaiting(id, generation: next.generation) {
            start(next)
        }
        tick()
    }

    private func rearm() {
        let next = scheduler.nextWakeDate
        guard next != armedDate else { return }
        timer?.cancel()
        timer = nil
        armedDate = next
        guard let next else { return }
        timer = clock.schedule(at: next) { [weak self] in
            MainActor.assumeIsolated {
                guard let self else { return }
                self.armedDate = nil
                self.timer = nil
                self.tick()
            }
        }
    }

    private func context(_ slot: Slot, userInitiated: Bool) -> TimelineProviderContext {
        TimelineProviderContext(family: slot.family, size: slot.size, isPreview: false, isUserInitiated: userInitiated,
                                minimumReloadInterval: scheduler.configuration.minimumReloadInterval)
    }

    private func publish() {
        center.publish(slots.sorted { $0.key < $1.key }.compactMap(\.value.info))
    }

    static func describe(_ error: any Error) -> String {
        if let error = error as? CustomStringConvertible { return error.description }
        return String(describing: error)
    }
}
