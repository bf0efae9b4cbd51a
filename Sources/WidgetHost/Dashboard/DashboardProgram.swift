import FoundationEssentials
import TerminalUI
import WidgetCore

/// Runs the effects that are not the program's own: the terminal runner's (`TerminalEffects`)
/// or the headless one's (`HeadlessDashboard`).
@MainActor
protocol DashboardHost: AnyObject {
    /// Runs one effect; answers, if any, go back through `program.send(_:)`.
    func perform(_ effect: DashboardEffect, in program: DashboardProgram)
}

/// One serial loop of messages around a `Dashboard` value: `send(_:)` queues a message; the
/// queue is applied in order through `Dashboard.update(_:at:)`, stamped with the clock's time,
/// and each returned effect is run before the next message — provider calls, the wake-ups,
/// actions, the `WidgetCenter` listing and building panels here, the rest by the host.
///
/// The program holds the only copy of the dashboard that lives on (`dashboard`, read-only
/// outside): `update` is the one place it changes. A message sent while one is being applied
/// (an effect's answer that comes at once) waits its turn instead of re-entering `update`.
///
/// What other threads have for the loop — provider answers, actions' ends, "the
/// `WidgetCenter` has requests" — is posted to the program's `mailbox` and taken in the loop's
/// turn (`takeMail()`); that is the only way work of ours reaches the loop's thread.
@MainActor
final class DashboardProgram {
    private(set) var dashboard: Dashboard
    /// The time messages are stamped with, and the wake-ups' timers.
    let clock: any WidgetClock
    /// Where `WidgetCenter` requests come from and the widgets' listing goes.
    let center: WidgetCenter
    /// The provider calls' tasks (`.startProvider`, `.cancelProvider`).
    let calls: ProviderCallRunner
    private let host: any DashboardHost
    private var inbox: [DashboardMessage] = []
    private var isRunning = false
    private var timelineWake: ClockTimer?
    private var relevanceWake: ClockTimer?
    private var pageRotation: ClockTimer?
    /// The gallery's snapshot call (`.previewGallery`), waited for by `settle`.
    private var galleryTask: Task<Void, Never>?
    /// The form's picker's request (`.queryOptions`), waited for by `settle`.
    private var optionsTask: Task<Void, Never>?
    /// Where provider calls run (and the gallery's snapshots).
    private let providerExecutor: (any TaskExecutor)?
    private var activityWake: ClockTimer?
    private var textWake: ClockTimer?
    /// Sees every message as it is applied, in order (the message log, tests).
    var onMessage: (DashboardMessage) -> Void = { _ in }
    /// Replaying a `MessageLog`: the effects that bring messages are left out, and answers
    /// or requests that still come from work started before are dropped — the log has them.
    var isReplaying = false
    /// The loop's inbox for other threads (see above).
    let mailbox: LoopMailbox<LoopMail>

    /// - Parameters:
    ///   - providerExecutor: where provider calls run; nil: Swift's global executor. The
    ///     dashboard passes a `ThreadTaskExecutor` with a few threads (see there why).
    ///   - wakeLoop: how the loop learns that mail came (called on the posting thread when the
    ///     mailbox stops being empty; the loop then calls `takeMail()`): the terminal's loop
    ///     writes the eventfd it sleeps on. Nil: a task on the main actor takes it (a headless
    ///     dashboard, tests).
    init(dashboard: Dashboard, clock: any WidgetClock, center: WidgetCenter, providerExecutor: (any TaskExecutor)? = nil,
         host: any DashboardHost, wakeLoop: (@Sendable () -> Void)? = nil) {
        self.dashboard = dashboard
        self.clock = clock
        self.center = center
        self.host = host
        calls = ProviderCallRunner(providerExecutor: providerExecutor)
        self.providerExecutor = providerExecutor
        let taker = MailTaker()
        mailbox = LoopMailbox(signal: wakeLoop ?? { Task { @MainActor in taker.program?.takeMail() } })
        taker.program = self
        center.connect { [mailbox] in mailbox.post(.centerRequests) }
        drain(after: self.dashboard.takeStartEffects())
    }

    /// Applies what other threads posted, in the order they posted it.
    func takeMail() {
        for mail in mailbox.take() {
            switch mail {
            case .message(let message):
                receive(message)
            case .centerRequests:
                let requests = center.takeRequests()
                if !requests.isEmpty { receive(.reloadsRequested(requests)) }
            }
        }
    }

    /// Applies `message` (and whatever it leads to) now, unless a message is being applied,
    /// then right after it.
    func send(_ message: DashboardMessage) {
        inbox.append(message)
        drain()
    }

    /// A message from work the program started (a provider call, `WidgetCenter`).
    private func receive(_ message: DashboardMessage) {
        guard !isReplaying else { return }
        send(message)
    }

    private func drain(after effects: [DashboardEffect] = []) {
        guard !isRunning else { return }
        isRunning = true
        defer { isRunning = false }
        effects.forEach(run)
        while !inbox.isEmpty {
            let next = inbox.removeFirst()
            onMessage(next)
            if case .providerAnswered(let answer) = next { calls.ended(answer.request) }
            dashboard.update(next, at: clock.now).forEach(run)
        }
    }

    private func run(_ effect: DashboardEffect) {
        if isReplaying, effect.bringsMessages { return }
        switch effect {
        case .startProvider(let call):
            calls.start(call, answer: { [mailbox] answer in mailbox.post(.message(.providerAnswered(answer))) })
        case .cancelProvider(let id):
            calls.cancel(id)
        case .armTimelineWake(let date):
            timelineWake = arm(timelineWake, at: date, sending: .timelinesDue)
        case .armRelevanceWake(let date):
            relevanceWake = arm(relevanceWake, at: date, sending: .relevanceExpired)
        case .armPageRotation(let date):
            pageRotation = arm(pageRotation, at: date, sending: .pageRotationDue)
        case .armActivityWake(let date):
            activityWake = arm(activityWake, at: date, sending: .activitiesDue)
        case .armTextWake(let date):
            textWake = arm(textWake, at: date, sending: .textsDue)
        case .publishWidgets(let widgets):
            center.publish(widgets)
        case .buildPanels(let config):
            guard let factory = dashboard.panelFactory else { return }
            receive(.panelsBuilt(factory.prepare(config, reusing: dashboard.panels)))
        case .runAction(let action):
            ActionRunner.run(action, clock: clock) { [mailbox] message in mailbox.post(.message(message)) }
        case .previewGallery(let request):
            galleryTask = GalleryPreviewer.start(request, widgets: dashboard.panelFactory?.widgets, executor: providerExecutor,
                                                 renderingMode: dashboard.timelines.renderingMode) { [mailbox] preview in
                mailbox.post(.message(.galleryPreviewed(preview)))
            }
        case .queryOptions(let request):
            optionsTask?.cancel()  // one request out at a time: the one it replaces is not awaited
            optionsTask = OptionsLookup.start(request, widgets: dashboard.panelFactory?.widgets, executor: providerExecutor) { [mailbox] answer in
                mailbox.post(.message(.optionsAnswered(answer)))
            }
        default:
            host.perform(effect, in: self)
        }
    }

    /// Replaces `timer` with one at `date` (nil: none) that sends `message` when it fires.
    private func arm(_ timer: ClockTimer?, at date: Date?, sending message: DashboardMessage) -> ClockTimer? {
        timer?.cancel()
        guard let date else { return nil }
        return clock.schedule(at: date) { [weak self] in
            MainActor.assumeIsolated { self?.receive(message) }
        }
    }

    // MARK: Waiting and drawing

    /// Waits until none of `ids` (nil: any) has a provider call running and every answer is
    /// applied (tests, headless snapshots): waits for the calls' tasks, whose answers are then
    /// in the mailbox, takes them, and again for the calls they started. No polling.
    func settle(_ ids: Set<WidgetInstanceID>? = nil) async {
        // Until a round brings no answer: one taken may start another call (answered at once
        // on the loop, or by a task waited for here).
        while true {
            let given = calls.answersGivenCount
            if let task = galleryTask {
                galleryTask = nil
                await task.value
            }
            // A picker's answer may send the query typed meanwhile: another round waits for it.
            let picker = optionsTask
            optionsTask = nil
            await picker?.value
            takeMail()
            await calls.waitForRunningCalls(of: ids)
            if calls.answersGivenCount == given, picker == nil { return }
        }
    }

    /// The frame at the clock's time.
    func render() -> CellBuffer { dashboard.render(at: clock.now) }
}

/// What other threads post to the dashboard's loop (`DashboardProgram.mailbox`).
enum LoopMail: Sendable {
    /// A message to apply in turn: a provider's answer, an action's end.
    case message(DashboardMessage)
    /// The `WidgetCenter` has requests: taken from it on the loop and applied as one
    /// `.reloadsRequested`.
    case centerRequests
}

/// Lets the mailbox's default signal find its program, which it is made before.
@MainActor
private final class MailTaker: Sendable {
    weak var program: DashboardProgram?
}
