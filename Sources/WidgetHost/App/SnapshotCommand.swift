import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// `widgethost snapshot`: renders one frame of the dashboard as text, at a chosen size and
/// moment, without a terminal.
@MainActor
enum SnapshotCommand {
    /// Builds the dashboard on a manual clock set to `--at` (default now), lets providers
    /// answer (at most `--wait` seconds, default 5), and returns the frame as text, with ANSI
    /// colours for `--color`.
    static func run(_ options: SnapshotOptions, environment: HostEnvironment, catalog: WidgetCatalog,
                    now: Date = Date()) async -> CommandOutput {
        let setup: DashboardSetup
        switch DashboardSetup.load(configPath: options.configPath, theme: options.theme, environment: environment, catalog: catalog) {
        case .success(let loaded): setup = loaded
        case .failure(let output): return output
        }
        let moment = options.at?.date(now: now) ?? now
        let clock = ManualClock(now: moment)
        let driver = TimelineDriver(clock: clock, configuration: DashboardRunner.schedulerConfiguration(setup.config))
        let glyphs = GlyphSet.forLocale(environment: environment.variables)
        let dashboard = Dashboard(driver: driver, size: options.size, glyphs: glyphs, themes: [setup.theme],
                                  environment: environment.variables)
        let widgetEnvironment = WidgetEnvironment(now: { clock.now }, variables: environment.variables,
                                                  stateDirectory: nil, center: driver.center)
        dashboard.setPanels(DashboardBuilder.panels(for: setup.config, catalog: catalog, driver: driver,
                                                    environment: widgetEnvironment))
        let settled = await finishes(within: options.waitSeconds ?? 5) { await driver.settle() }
        let backend = TextBackend(size: options.size)
        if options.color {
            let capability: ColorCapability = environment.variables["NO_COLOR"].map { $0.isEmpty } ?? true ? .palette256 : .none
            backend.palette = TerminalPalette(theme: setup.theme, capability: capability)
        }
        backend.present(dashboard.render())
        let warning = settled ? "" : "widgethost snapshot: some widgets had not answered after \(options.waitSeconds ?? 5) s; they show their placeholder\n"
        return CommandOutput(exitCode: 0, standardOutput: backend.render(), standardError: warning)
    }
}
