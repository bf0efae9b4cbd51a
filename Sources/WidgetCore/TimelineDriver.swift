import FoundationEssentials

/// Runs the scheduler against a clock and real providers on the host's serial loop.
///
/// The driver keeps at most one one-shot wake-up, at the scheduler's `nextWakeDate`; when it
/// comes (`wake()`) it advances the scheduler and starts the requested provider calls, whose
/// answers (`receive(_:)`) are tagged with their generation. `WidgetCenter` requests are applied
/// here too (`apply(_:)`). `onChange` tells the front end which panels to redraw.
///
/// What it decides is a `TimelineEffect` (start a call, cancel one, arm the wake-up). A
/// standalone driver runs them itself (`run(_:)`) and takes its answers, timer and
/// `WidgetCenter` wake-ups directly; a host that runs a loop of messages attaches itself
/// (`attach(_:)`) and gets the effects, and sends the answers, wake-ups and requests back in as
/// its own messages.
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

    /// A host running the driver's effects and feeding it its inputs as messages of its own.
    public struct Host {
        /// Runs (or queues) one effect.
        public var perform: (TimelineEffect) -> Void
        /// Takes what other threads posted (a provider's answer, "the `WidgetCenter` has
        /// requests") into the host's loop's mailbox; called from any thread. The host calls
        /// `receive(_:)` and `apply(_:)` in its turn.
        public var post: @Sendable (TimelineInput) -> Void
        /// Applies the host's mail now, on the main actor (`settle()` asks, having waited for
        /// answers to be posted).
        public var takeMail: () -> Void

        public init(perform: @escaping (TimelineEffect) -> Void, post: @escaping @Sendable (TimelineInput) -> Void,
                    takeMail: @escaping () -> Void) {
            self.perform = perform
            self.post = post
            self.takeMail = takeMail
        }
    }

    public let scheduler: TimelineScheduler
    public let clock: any WidgetClock
    public let center: WidgetCenter
    /// Called with the instances whose panel must be redrawn (entry, loading or error changed).
    public var onChange: ([WidgetInstanceID]) -> Void = { _ in }
    /// The provider calls' tasks: `run(.start)` and `run(.cancel)` go there.
    public let calls: ProviderCallRunner

    private var slots: [WidgetInstanceID: Slot] = [:]
    private var host: Host?
    /// The standalone driver's own wake-up (an attached host arms its own).
    private var timer: ClockTimer?
    private var armedDate: Date?
    /// The generation of each instance's running provider call (at most one).
    private var running: [WidgetInstanceID: UInt64] = [:]
    /// Requests that came due while the instance's previous call (timed out and cancelled, but
    /// not yet returned) still ran; started when it returns.
    private var held: [WidgetInstanceID: ReloadRequest] = [:]
    private var batchDepth = 0
    /// The standalone driver's inputs from other threads (an attached host posts to its own):
    /// a standalone driver is its own loop, its mail taken by a task on the main actor.
    private lazy var ownMailbox = LoopMailbox<TimelineInput>(signal: { [weak self] in
        Task { @MainActor in self?.takeMail() }
    })

    /// - Parameters:
    ///   - providerExecutor: where provider calls run; nil: Swift's global executor. The
    ///     dashboard passes a `ThreadTaskExecutor` with a few threads (see there why).
    public init(
        clock: any WidgetClock,
        configuration: SchedulerConfiguration = .init(),
        center: WidgetCenter = WidgetCenter(),
        providerExecutor: (any TaskExecutor)? = nil
    ) {
        self.clock = clock
        self.center = center
        calls = ProviderCallRunner(providerExecutor: providerExecutor)
        scheduler = TimelineScheduler(configuration: configuration)
        center.connect { [ownMailbox] in ownMailbox.post(.centerRequests) }
    }

    /// Hands the driver's effects and inputs to `host` from now on: the standalone wake-up is
    /// cancelled and the one due is armed by the host instead.
    public func attach(_ host: Host) {
        self.host = host
        center.connect(wake: { [post = host.post] in post(.centerRequests) })
        timer?.cancel()
        timer = nil
        if let armedDate { host.perform(.arm(armedDate)) }
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
        if running[id] != nil { emit(.cancel(id)) }
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

    /// Applies `WidgetCenter` requests (taken with `takeRequests()`).
    public func apply(_ requests: [WidgetCenter.Request]) {
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

    /// Applies one input taken from a mailbox (the standalone driver's own, or the host's).
    public func take(_ input: TimelineInput) {
        switch input {
        case .answered(let answer): receive(answer)
        case .centerRequests: apply(center.takeRequests())
        }
    }

    /// The driver's own mail (answers of calls started before a host attached: the status
    /// bar's clock's first), then the attached host's, applied now.
    private func takeMail() {
        guard let host else {
            for input in ownMailbox.take() { take(input) }
            return
        }
        // Through the host's mailbox: an answer is the host's message like any other (its log
        // records it).
        for input in ownMailbox.take() { host.post(input) }
        host.takeMail()
    }

    /// Waits until no provider call is running and every answer is taken (for tests and
    /// headless snapshots): waits for the calls' tasks, whose answers are then in the mailbox,
    /// takes them, and again for the calls they started. No polling.
    public func settle() async {
        await settle(nil)
    }

    /// Waits until none of `ids` (nil: any) has a provider call running (for tests: the
    /// others may block).
    public func settle(_ ids: Set<WidgetInstanceID>?) async {
        // Until a round brings no answer: one taken from the mailbox may start another call
        // (answered at once on the loop, or by a task waited for here).
        while true {
            let given = calls.answersGivenCount
            takeMail()
            await calls.waitForRunningCalls(of: ids)
            if calls.answersGivenCount == given { return }
        }
    }

    /// Provider calls still running (cancelled ones included, until they return).
    public var runningProviderCalls: Int { running.count }

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
        for id in changes.timedOut where running[id] != nil { emit(.cancel(id)) }
        for request in changes.reloads { start(request) }
        var changed = changes.entryChanged + changes.timedOut + changes.reloads.map(\.instance)
        if !changed.isEmpty {
            changed = Array(Set(changed)).sorted()
            onChange(changed)
        }
        rearm()
    }

    /// The wake-up armed (`.arm`) came.
    public func wake() {
        armedDate = nil
        tick()
    }

    /// Takes a provider's answer: the scheduler keeps it unless its generation is stale.
    public func receive(_ answer: ProviderAnswer) {
        let request = answer.request
        let id = request.instance
        calls.ended(request)
        if running[id] == request.generation { running[id] = nil }
        let now = clock.now
        let accepted: Bool
        switch answer.result {
        case .success(let timeline):
            accepted = scheduler.deliver(timeline, to: id, generation: request.generation, now: now) != .stale
        case .failure(let error):
            accepted = scheduler.fail(id, generation: request.generation, message: Self.describe(error), now: now)
        }
        if accepted { onChange([id]) }
        if running[id] == nil, let next = held.removeValue(forKey: id),
           scheduler.isAwaiting(id, generation: next.generation) {
            start(next)
        }
        tick()
    }

    /// Runs one effect as a standalone driver does: provider calls on `calls`, answers taken
    /// at once, the wake-up on the clock. An attached host runs `.start` and `.cancel` here too.
    public func run(_ effect: TimelineEffect) {
        switch effect {
        case .start(let call):
            calls.start(call, answer: { [post = host?.post, ownMailbox] answer in
                (post ?? ownMailbox.post)(.answered(answer))
            })
        case .cancel(let id):
            calls.cancel(id)
        case .arm(let date):
            timer?.cancel()
            timer = nil
            guard let date else { return }
            timer = clock.schedule(at: date) { [weak self] in
                MainActor.assumeIsolated {
                    guard let self else { return }
                    self.timer = nil
                    self.wake()
                }
            }
        }
    }

    private func start(_ request: ReloadRequest) {
        guard let slot = slots[request.instance] else { return }
        guard running[request.instance] == nil else {
            held[request.instance] = request  // one call per instance: after the running one
            return
        }
        running[request.instance] = request.generation
        emit(.start(ProviderCall(request: request, provider: slot.provider,
                                 context: context(slot, userInitiated: request.isUserInitiated), onLoop: slot.onLoop)))
    }

    private func emit(_ effect: TimelineEffect) {
        if let host { host.perform(effect) } else { run(effect) }
    }

    private func rearm() {
        let next = scheduler.nextWakeDate
        guard next != armedDate else { return }
        armedDate = next
        emit(.arm(next))
    }

    private func context(_ slot: Slot, userInitiated: Bool) -> TimelineProviderContext {
        TimelineProviderContext(family: slot.family, size: slot.size, isPreview: false, isUserInitiated: userInitiated,
                                minimumReloadInterval: scheduler.configuration.minimumReloadInterval)
    }

    private func publish() {
        center.publish(slots.sorted { $0.key < $1.key }.compactMap(\.value.info))
    }

    nonisolated static func describe(_ error: any Error) -> String {
        if let error = error as? CustomStringConvertible { return error.description }
        return String(describing: error)
    }
}
