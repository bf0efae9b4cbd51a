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
/// next message — timeline effects on the driver here, the rest by the host.
///
/// A message sent while one is being applied (the driver reporting a change during a reload,
/// say) waits its turn instead of re-entering `update`. Everything is on the main actor:
/// no thread, no timer.
@MainActor
final class DashboardProgram {
    let dashboard: Dashboard
    private let host: any DashboardHost
    private var inbox: [DashboardMessage] = []
    private var isRunning = false

    init(dashboard: Dashboard, host: any DashboardHost) {
        self.dashboard = dashboard
        self.host = host
        dashboard.send = { [weak self] message in self?.send(message) }
    }

    /// Applies `message` (and whatever it leads to) now, unless a message is being applied,
    /// then right after it.
    func send(_ message: DashboardMessage) {
        inbox.append(message)
        drain()
    }

    /// Runs effects produced outside `update` (start-up building the first panels).
    func flush() {
        guard !isRunning else { return }  // they go out with the next message's
        let effects = dashboard.outbox
        dashboard.outbox = []
        drain(after: effects)
    }

    private func drain(after effects: [DashboardEffect] = []) {
        guard !isRunning else { return }
        isRunning = true
        defer { isRunning = false }
        for effect in effects { run(effect) }
        while !inbox.isEmpty {
            let next = inbox.removeFirst()
            for effect in dashboard.update(next) { run(effect) }
        }
    }

    private func run(_ effect: DashboardEffect) {
        let driver = dashboard.driver
        switch effect {
        case .reload(let ids, let userInitiated):
            for id in ids { driver.reload(id, userInitiated: userInitiated) }
        case .pauseAutomaticReloads(let paused):
            driver.setAutomaticReloadsPaused(paused)
        case .reloadAllForEnvironment:
            driver.reloadAllForEnvironment()
        default:
            host.perform(effect, in: self)
        }
    }
}
