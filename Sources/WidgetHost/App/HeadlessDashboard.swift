import Extensions
import FoundationEssentials
import LeaderboardServer
import TerminalUI
import WidgetCore
import Widgets

/// A dashboard without a terminal, on a manual clock: what `widgethost snapshot` renders, and
/// what `widgethost-bench` keeps alive to render frames again and again.
///
/// It builds the config's panels (the default dashboard starts the bundled leaderboard
/// server, as the dashboard does), fetches through `HeadlessSessions` — never the dashboard's
/// own state directory — and waits for providers and downloads to finish.
@MainActor
package final class HeadlessDashboard {
    /// The dashboard's time; `advance(by:)` moves it.
    package let clock: ManualClock
    /// The theme in use (`--theme`, the config's, or the default).
    package let theme: Theme
    private let dashboard: Dashboard
    private let driver: TimelineDriver
    private let sessions: HeadlessSessions
    private let server: LeaderboardService?

    private init(clock: ManualClock, theme: Theme, dashboard: Dashboard, driver: TimelineDriver, sessions: HeadlessSessions,
                 server: LeaderboardService?) {
        self.clock = clock
        self.theme = theme
        self.dashboard = dashboard
        self.driver = driver
        self.sessions = sessions
        self.server = server
    }

    /// Builds the dashboard of the config found from `configPath` (as the dashboard finds it)
    /// at `size` and time `now`. Fails with the command output that explains why (bad config
    /// or theme: exit 2).
    ///
    /// - Parameters:
    ///   - catalog: the widget kinds (from `main`).
    ///   - stateDirectory: a dashboard's state directory whose cached widget data is copied in
    ///     (read, never written); nil starts empty.
    ///   - extensions: the extensions whose kinds `catalog` holds; their `reloadTimelines`
    ///     notifications go to this dashboard's scheduler.
    package static func open(catalog: Catalog, configPath: String?, theme: String? = nil, stateDirectory: String? = nil,
                             size: TerminalSize, now: Date, environment: HostEnvironment = .current(),
                             io: HostIO? = nil, extensions: ExtensionRuntime? = nil) -> Result<HeadlessDashboard, CommandOutput> {
        var setup: DashboardSetup
        switch DashboardSetup.load(configPath: configPath, theme: theme, environment: environment, catalog: catalog) {
        case .success(let loaded): setup = loaded
        case .failure(let output): return .failure(output)
        }
        let server: LeaderboardService?
        switch setup.startBundledServer(log: nil, catalog: catalog) {
        case .success(let service): server = service
        case .failure(let output): return .failure(output)
        }
        let clock = ManualClock(now: now)
        guard let sessions = HeadlessSessions(clock: clock, seed: stateDirectory, io: io) else {
            server?.stop()
            return .failure(CommandOutput(exitCode: 1, standardError: "widgethost: cannot create a temporary directory\n"))
        }
        let driver = TimelineDriver(clock: clock, configuration: DashboardRunner.schedulerConfiguration(setup.config))
        // An extension's reloadTimelines (after its sessionEvents, say) reaches this dashboard.
        extensions?.setCenter(driver.center)
        let widgets = catalog.bind(services: sessions.services(center: driver.center, now: { clock.now }))
        sessions.route(to: widgets)
        let dashboard = Dashboard(driver: driver, size: size, glyphs: GlyphSet.forLocale(environment: environment.variables),
                                  themes: [setup.theme], environment: environment.variables)
        driver.batch {
            dashboard.setPanels(DashboardBuilder.panels(for: setup.config, widgets: widgets, driver: driver,
                                                        environment: WidgetEnvironment(now: { clock.now }, variables: environment.variables,
                                                                                       center: driver.center)))
        }
        return .success(HeadlessDashboard(clock: clock, theme: setup.theme, dashboard: dashboard, driver: driver,
                                          sessions: sessions, server: server))
    }

    /// Waits until no provider call runs, no download runs and no session event waits, at most
    /// `seconds`; true when everything settled in time.
    ///
    /// Downloads finish on the network thread and come back as `WidgetCenter` reloads, so this
    /// checks in short steps.
    package func settle(within seconds: Double) async -> Bool {
        await finishes(within: seconds) { [driver, sessions] in
            var quietRounds = 0
            while quietRounds < 2 {
                await driver.settle()
                quietRounds = sessions.isIdle && driver.runningProviderCalls == 0 ? quietRounds + 1 : 0
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// The number of panels laid out.
    package var panelCount: Int { dashboard.panels.count }

    /// Draws the whole frame at the clock's time (what the running dashboard does per frame).
    package func render() -> CellBuffer { dashboard.render() }

    /// Lets `seconds` of simulated time pass as a running dashboard lives them: the clock
    /// moves from one wake-up to the next, and whatever starts there (provider calls,
    /// downloads) finishes before time moves on, as it would in real time. Jumping the clock
    /// in one step would instead let requests time out while their answers are on the way.
    ///
    /// - Returns: false when a step did not settle within `settleWithin` seconds.
    package func run(for seconds: TimeInterval, settleWithin: Double = 10) async -> Bool {
        let end = clock.now + seconds
        var settled = true
        while clock.now < end {
            let next = min(clock.nextScheduledDate ?? end, end)
            clock.advance(to: max(next, clock.now))
            await driver.settle()
            if !sessions.isIdle { settled = await settle(within: settleWithin) && settled }
        }
        return settled
    }

    /// Applies a key as the running dashboard would (`r` reloads the focused panel, say).
    package func press(_ key: Key) { dashboard.handle(key) }

    /// Moves the clock; timelines advance synchronously (provider calls it starts run on).
    package func advance(by seconds: TimeInterval) { clock.advance(by: seconds) }

    /// Stops the bundled server, closes the sessions and removes their temporary directory.
    package func close() {
        server?.stop()
        sessions.close()
    }
}
