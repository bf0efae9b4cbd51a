import FoundationEssentials

/// Runs a `TimelineState` on its own against a clock and real providers, on the main actor:
/// the widgets' tests, and any host without a loop of messages of its own.
///
/// Each call applies one change to the state at the clock's time and runs what it decided at
/// once: provider calls on `calls` (their answers come back through the driver's own mailbox,
/// taken on the main actor), the one wake-up as a timer of the clock, the `WidgetCenter`
/// listing; `onChange` tells which panels to redraw. `WidgetCenter` requests come in through
/// the same mailbox. The dashboard does not use a driver: its state holds the `TimelineState`
/// itself, and its program runs the effects (`DashboardProgram`).
///
/// Calls of different instances run in parallel on `providerExecutor`, so one slow provider
/// holds up no other panel.
@MainActor
public final class TimelineDriver {
    /// The timelines: every change goes through the driver.
    public private(set) var state: TimelineState
    public var scheduler: TimelineScheduler { state.scheduler }
    public let clock: any WidgetClock
    public let center: WidgetCenter
    /// Called with the instances whose panel must be redrawn (entry, loading or error changed).
    public var onChange: ([WidgetInstanceID]) -> Void = { _ in }
    /// The provider calls' tasks.
    public let calls: ProviderCallRunner

    private var timer: ClockTimer?
    /// Answers and "the `WidgetCenter` has requests", from other threads: taken by a task on
    /// the main actor.
    private lazy var mailbox = LoopMailbox<TimelineInput>(signal: { [weak self] in
        Task { @MainActor in self?.takeMail() }
    })

    /// - Parameters:
    ///   - providerExecutor: where provider calls run; nil: Swift's global executor.
    public init(
        clock: any WidgetClock,
        configuration: SchedulerConfiguration = .init(),
        center: WidgetCenter = WidgetCenter(),
        providerExecutor: (any TaskExecutor)? = nil
    ) {
        self.clock = clock
        self.center = center
        calls = ProviderCallRunner(providerExecutor: providerExecutor)
        state = TimelineState(configuration: configuration)
        center.connect { [mailbox] in mailbox.post(.centerRequests) }
    }

    // MARK: Instances

    /// Adds a panel's widget; its first timeline is requested at once. `pausable: false` keeps
    /// its reloads going while automatic reloads are paused (see `TimelineScheduler.add`).
    ///
    /// - Parameter info: how `WidgetCenter.currentConfigurations()` lists it (title, options);
    ///   nil: the kind as title, no options. `listed: false` keeps the host's own instances
    ///   out of that list.
    /// - Parameter onLoop: run the provider on the main actor instead of `providerExecutor`:
    ///   for providers that are cheap and never block (a reload then wakes no other thread).
    public func add(kind: String, family: WidgetFamily, size: CellSize, provider: AnyTimelineProvider,
                    pausable: Bool = true, info: WidgetCenter.WidgetInfo? = nil, listed: Bool = true,
                    onLoop: Bool = false) -> WidgetInstanceID {
        let id = state.add(kind: kind, family: family, size: size, provider: provider, pausable: pausable, info: info,
                           listed: listed, onLoop: onLoop, now: clock.now)
        flush()
        return id
    }

    /// Removes a panel's widget; a late answer for it is dropped.
    public func remove(_ id: WidgetInstanceID) { change { $0.remove(id, now: $1) } }

    /// Tells future requests the panel's new size; a change of size asks the provider for a
    /// timeline laid out for it.
    public func resize(_ id: WidgetInstanceID, to size: CellSize) { change { $0.resize(id, to: size, now: $1) } }

    /// The placeholder entry of an instance (synchronous, for the first frame).
    public func placeholder(for id: WidgetInstanceID) -> (any TimelineEntry)? { state.placeholder(for: id) }

    public func status(of id: WidgetInstanceID) -> TimelineScheduler.Status? { state.status(of: id) }

    // MARK: Requests

    /// Reloads one instance; the `r` key passes `userInitiated: true`.
    public func reload(_ id: WidgetInstanceID, userInitiated: Bool) { change { $0.reload(id, userInitiated: userInitiated, now: $1) } }

    /// Reloads every instance; the `R` key passes `userInitiated: true`.
    public func reloadAll(userInitiated: Bool) { change { $0.reloadAll(userInitiated: userInitiated, now: $1) } }

    /// Reloads every instance because the environment changed (the wall clock was set).
    public func reloadAllForEnvironment() { change { $0.reloadAllForEnvironment(now: $1) } }

    /// Applies new rules to reloads scheduled from now on.
    public func updateConfiguration(_ configuration: SchedulerConfiguration) { state.updateConfiguration(configuration) }

    public func setAutomaticReloadsPaused(_ paused: Bool) { change { $0.setAutomaticReloadsPaused(paused, now: $1) } }

    /// Applies `WidgetCenter` requests (taken with `takeRequests()`).
    public func apply(_ requests: [WidgetCenter.Request]) { change { $0.apply(requests, now: $1) } }

    /// Takes a provider's answer: the scheduler keeps it unless its generation is stale.
    public func receive(_ answer: ProviderAnswer) {
        calls.ended(answer.request)
        change { $0.receive(answer, now: $1) }
    }

    /// The wake-up came.
    public func wake() { change { $0.wake(now: $1) } }

    /// Advances to the clock's now, starts due requests, reports changes, re-arms the wake-up.
    public func tick() { change { $0.tick(now: $1) } }

    /// Runs `body` (adding instances, resizing them) and only then advances: the first
    /// requests of instances added inside go out with the sizes set inside, not 0×0.
    public func batch(_ body: () -> Void) {
        state.beginBatch()
        body()
        change { $0.endBatch(now: $1) }
    }

    /// Applies what other threads posted (answers, `WidgetCenter` requests), in order.
    private func takeMail() {
        for input in mailbox.take() {
            switch input {
            case .answered(let answer): receive(answer)
            case .centerRequests: apply(center.takeRequests())
            }
        }
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
        // Until a round brings no answer: one taken from the mailbox may start another call.
        while true {
            let given = calls.answersGivenCount
            takeMail()
            await calls.waitForRunningCalls(of: ids)
            if calls.answersGivenCount == given { return }
        }
    }

    /// Provider calls still running (cancelled ones included, until they return).
    public var runningProviderCalls: Int { state.runningProviderCalls }

    // MARK: Effects

    /// Applies one change at the clock's time and runs what it decided.
    private func change(_ body: (inout TimelineState, Date) -> Void) {
        body(&state, clock.now)
        flush()
    }

    private func flush() {
        let output = state.takeOutput()
        for effect in output.effects { run(effect) }
        if !output.changed.isEmpty { onChange(output.changed) }
    }

    private func run(_ effect: TimelineEffect) {
        switch effect {
        case .start(let call):
            calls.start(call, answer: { [mailbox] answer in mailbox.post(.answered(answer)) })
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
        case .publish(let widgets):
            center.publish(widgets)
        }
    }

    nonisolated static func describe(_ error: any Error) -> String {
        if let error = error as? CustomStringConvertible { return error.description }
        return String(describing: error)
    }
}
