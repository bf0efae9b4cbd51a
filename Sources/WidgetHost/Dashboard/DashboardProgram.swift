import FoundationEssentials
import WidgetCore

/// Runs the effects that are not the timelines': the terminal runner's (`TerminalEffects`) or
/// the headless one's (`HeadlessDashboard`).
@MainActor
protocol DashboardHost: AnyObject {
    /// Runs one effect; answers, if any, go back through `program.send(_:)`.
    func perform(_ effect: DashboardEffect, in program: DashboardProgram)
}

/// One serial loop of messages around a `Dashboard`: `send(_:)` queues a message; the queue is
/// applied in order through `Dashboard.update(_:)` and each returned effect is run before the
/// next message — timeline effects, actions and the stacks' wake-up here, the rest by the host.
///
/// The program is the driver's host (`TimelineDriver.attach`): what the driver decides while
/// a message is applied (start a provider call, cancel one, arm its wake-up) is an effect
/// returned by `update`; provider answers, the wake-ups and `WidgetCenter` requests come back
/// as messages. A message sent while one is being applied (the driver reporting a change
/// during a reload, say) waits its turn instead of re-entering `update`. Everything is on the
/// main actor; the one wake-up of each kind is a timer of the dashboard's clock.
///
/// What other threads have for the loop — provider answers, actions' ends, "the
/// `WidgetCenter` has requests" — is posted to the program's `mailbox` and taken in the loop's
/// turn (`takeMail()`); that is the only way work of ours reaches the loop's thread.
@MainActor
final class DashboardProgram {
    let dashboard: Dashboard
    private let host: any DashboardHost
    private var inbox: [DashboardMessage] = []
    private var isRunning = false
    private var timelineWake: ClockTimer?
    private var relevanceWake: ClockTimer?
    /// Sees every message as it is applied, in order (the message log, tests).
    var onMessage: (DashboardMessage) -> Void = { _ in }
    /// Replaying a `MessageLog`: the effects that bring messages are left out, and answers
    /// or requests that still come from work started before are dropped — the log has them.
    var isReplaying = false
    /// The loop's inbox for other threads (see above).
    let mailbox: LoopMailbox<LoopMail>

    /// - Parameter wakeLoop: how the loop learns that mail came (called on the posting thread
    ///   when the mailbox stops being empty; the loop then calls `takeMail()`): the terminal's
    ///   loop writes the eventfd it sleeps on. Nil: a task on the main actor takes it (a
    ///   headless dashboard, tests).
    init(dashboard: Dashboard, host: any DashboardHost, wakeLoop: (@Sendable () -> Void)? = nil) {
        self.dashboard = dashboard
        self.host = host
        let taker = MailTaker()
        mailbox = LoopMailbox(signal: wakeLoop ?? { Task { @MainActor in taker.program?.takeMail() } })
        taker.program = self
        dashboard.send = { [weak self] message in self?.send(message) }
        dashboard.driver.attach(TimelineDriver.Host(
            perform: { [weak self] effect in self?.timelineEffect(effect) },
            post: { [mailbox] input in
                switch input {
                case .answered(let answer): mailbox.post(.message(.providerAnswered(answer)))
                case .centerRequests: mailbox.post(.centerRequests)
                }
            },
            takeMail: { [weak self] in self?.takeMail() }
        ))
    }

    /// Applies what other threads posted, in the order they posted it.
    func takeMail() {
        for mail in mailbox.take() {
            switch mail {
            case .message(let message):
                receive(message)
            case .centerRequests:
                let requests = dashboard.driver.center.takeRequests()
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

    /// Runs effects produced outside `update` (start-up building the first panels).
    func flush() {
        guard !isRunning else { return }  // they go out with the next message's
        let effects = dashboard.outbox
        dashboard.outbox = []
        drain(after: effects)
    }

    private func drain(after effects: [DashboardEffect] = []) {
        // A message sent while one is applied outside the program (a test calling `update`
        // itself) waits for the next one too, instead of re-entering `update`.
        guard !isRunning, !dashboard.isUpdating else { return }
        isRunning = true
        defer { isRunning = false }
        runAll(effects)
        while !inbox.isEmpty {
            let next = inbox.removeFirst()
            onMessage(next)
            runAll(dashboard.update(next))
        }
    }

    /// Runs `effects` in order, each followed by those it led to (a reload's provider call).
    private func runAll(_ effects: [DashboardEffect]) {
        for effect in effects {
            run(effect)
            guard !dashboard.outbox.isEmpty else { continue }
            let more = dashboard.outbox
            dashboard.outbox = []
            runAll(more)
        }
    }

    /// An effect the driver decided: part of the message being applied (returned by
    /// `update`) or of the effect being run; outside both (a test building panels by hand),
    /// run at once.
    private func timelineEffect(_ effect: TimelineEffect) {
        let mapped: DashboardEffect
        switch effect {
        case .start(let call): mapped = .startProvider(call)
        case .cancel(let id): mapped = .cancelProvider(id)
        case .arm(let date): mapped = .armTimelineWake(date)
        }
        if isRunning || dashboard.isUpdating { dashboard.emit(mapped) } else { run(mapped) }
    }

    private func run(_ effect: DashboardEffect) {
        if isReplaying, effect.bringsMessages { return }
        let driver = dashboard.driver
        switch effect {
        case .startProvider(let call):
            driver.run(.start(call))
        case .cancelProvider(let id):
            driver.run(.cancel(id))
        case .armTimelineWake(let date):
            timelineWake = arm(timelineWake, at: date, sending: .timelinesDue)
        case .armRelevanceWake(let date):
            relevanceWake = arm(relevanceWake, at: date, sending: .relevanceExpired)
        case .buildPanels(let config):
            guard let factory = dashboard.panelFactory else { return }
            receive(.panelsBuilt(factory.prepare(config, reusing: dashboard.panels)))
        case .runAction(let action):
            ActionRunner.run(action, clock: driver.clock) { [mailbox] message in mailbox.post(.message(message)) }
        default:
            host.perform(effect, in: self)
        }
    }

    /// Replaces `timer` with one at `date` (nil: none) that sends `message` when it fires.
    private func arm(_ timer: ClockTimer?, at date: Date?, sending message: DashboardMessage) -> ClockTimer? {
        timer?.cancel()
        guard let date else { return nil }
        return dashboard.driver.clock.schedule(at: date) { [weak self] in
            MainActor.assumeIsolated { self?.receive(message) }
        }
    }
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
