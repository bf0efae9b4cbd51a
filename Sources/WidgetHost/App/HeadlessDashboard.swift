import BackgroundSessions
import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// A dashboard without a terminal that stays alive, for `widgethost-bench`: what
/// `widgethost snapshot` builds (config, manual clock, background sessions in a temporary
/// state directory), kept so that frames can be rendered again and again as the clock moves.
@MainActor
package final class HeadlessDashboard {
    /// The dashboard's time; `advance(by:)` moves it.
    package let clock: ManualClock
    private let dashboard: Dashboard
    private let driver: TimelineDriver
    private let sessions: BackgroundSessionManager?
    private let temporary: String

    private init(clock: ManualClock, dashboard: Dashboard, driver: TimelineDriver, sessions: BackgroundSessionManager?,
                 temporary: String) {
        self.clock = clock
        self.dashboard = dashboard
        self.driver = driver
        self.sessions = sessions
        self.temporary = temporary
    }

    /// Builds the dashboard of the config file at `configPath` at `size` and time `now`, and
    /// waits (at most `waitSeconds`) until its providers and downloads have finished.
    /// Returns the message that explains a failure.
    package static func open(configPath: String, size: TerminalSize, now: Date, waitSeconds: Double = 5,
                             environment: HostEnvironment = .current()) async -> Result<HeadlessDashboard, HeadlessDashboardError> {
        let setup: DashboardSetup
        switch DashboardSetup.load(configPath: configPath, theme: nil, environment: environment) {
        case .success(let loaded): setup = loaded
        case .failure(let output): return .failure(HeadlessDashboardError(message: output.standardError))
        }
        guard let temporary = SnapshotCommand.makeTemporaryDirectory() else {
            return .failure(HeadlessDashboardError(message: "cannot create a temporary directory"))
        }
        let clock = ManualClock(now: now)
        let driver = TimelineDriver(clock: clock, configuration: DashboardRunner.schedulerConfiguration(setup.config))
        let sessions = try? BackgroundSessionManager.open(stateDirectory: temporary, transport: try CurlTransport(), clock: clock)
        let catalog = WidgetCatalog.builtin(services: WidgetServices(sessions: sessions, stateDirectory: temporary,
                                                                     center: driver.center, now: { clock.now }))
        sessions?.eventRouter = BackgroundSessionManager.router(for: { [widgets = catalog.entries.map(\.widget)] in widgets })
        let dashboard = Dashboard(driver: driver, size: size, glyphs: GlyphSet.forLocale(environment: environment.variables),
                                  themes: [setup.theme], environment: environment.variables)
        dashboard.setPanels(DashboardBuilder.panels(for: setup.config, catalog: catalog, driver: driver,
                                                    environment: WidgetEnvironment(now: { clock.now }, variables: environment.variables,
                                                                                   center: driver.center)))
        let headless = HeadlessDashboard(clock: clock, dashboard: dashboard, driver: driver, sessions: sessions, temporary: temporary)
        guard await finishes(within: waitSeconds, { await SnapshotCommand.settle(driver, sessions: sessions) }) else {
            headless.close()
            return .failure(HeadlessDashboardError(message: "the widgets did not have their data after \(waitSeconds) s"))
        }
        return .success(headless)
    }

    /// The number of panels laid out.
    package var panelCount: Int { dashboard.panels.count }

    /// Draws the whole frame at the clock's time (what the running dashboard does per frame).
    package func render() -> CellBuffer { dashboard.render() }

    /// Moves the clock; timelines advance synchronously (provider calls it starts run on).
    package func advance(by seconds: TimeInterval) { clock.advance(by: seconds) }

    /// Closes the background sessions and removes the temporary state directory.
    package func close() {
        sessions?.close()
        SnapshotCommand.removeTree(temporary)
    }
}

/// Why a headless dashboard could not be built.
package struct HeadlessDashboardError: Error, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
