#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import FoundationEssentials
import LeaderboardServer
import TerminalUI
import WidgetCore
import Widgets

/// `widgethost snapshot`: renders one frame of the dashboard as text, at a chosen size and
/// moment, without a terminal.
@MainActor
enum SnapshotCommand {
    /// Builds the dashboard on a manual clock set to `--at` (default now), lets providers and
    /// their downloads finish (at most `--wait` seconds, default 5), and returns the frame as
    /// text, with ANSI colours for `--color`.
    ///
    /// It never touches the dashboard's state directory: downloads go through background
    /// sessions in a temporary one, removed afterwards. The default dashboard starts the
    /// bundled leaderboard server, as the dashboard does.
    static func run(_ options: SnapshotOptions, environment: HostEnvironment, now: Date = Date()) async -> CommandOutput {
        var setup: DashboardSetup
        switch DashboardSetup.load(configPath: options.configPath, theme: options.theme, environment: environment) {
        case .success(let loaded): setup = loaded
        case .failure(let output): return output
        }
        let server: LeaderboardService?
        switch setup.startBundledServer(log: nil) {
        case .success(let service): server = service
        case .failure(let output): return output
        }
        defer { server?.stop() }
        guard let temporary = makeTemporaryDirectory() else {
            return CommandOutput(exitCode: 1, standardError: "widgethost snapshot: cannot create a temporary directory\n")
        }
        defer { removeTree(temporary) }

        let clock = ManualClock(now: options.at?.date(now: now) ?? now)
        let driver = TimelineDriver(clock: clock, configuration: DashboardRunner.schedulerConfiguration(setup.config))
        let sessions = try? BackgroundSessionManager.open(stateDirectory: temporary, transport: try CurlTransport(), clock: clock)
        defer { sessions?.close() }
        let catalog = WidgetCatalog.builtin(services: WidgetServices(sessions: sessions, stateDirectory: temporary,
                                                                     center: driver.center, now: { clock.now }))
        sessions?.eventRouter = BackgroundSessionManager.router(for: { [widgets = catalog.entries.map(\.widget)] in widgets })
        let dashboard = Dashboard(driver: driver, size: options.size, glyphs: GlyphSet.forLocale(environment: environment.variables),
                                  themes: [setup.theme], environment: environment.variables)
        dashboard.setPanels(DashboardBuilder.panels(for: setup.config, catalog: catalog, driver: driver,
                                                    environment: WidgetEnvironment(now: { clock.now }, variables: environment.variables,
                                                                                   center: driver.center)))
        let wait = options.waitSeconds ?? 5
        let settled = await finishes(within: wait) { await settle(driver, sessions: sessions) }
        let backend = TextBackend(size: options.size)
        if options.color {
            let noColor = !(environment.variables["NO_COLOR"] ?? "").isEmpty
            backend.palette = TerminalPalette(theme: setup.theme, capability: noColor ? .none : .palette256)
        }
        backend.present(dashboard.render())
        let warning = settled ? "" : "widgethost snapshot: not every widget had its data after \(wait) s\n"
        return CommandOutput(exitCode: 0, standardOutput: backend.render(), standardError: warning)
    }

    /// Waits until no provider call runs, no download runs and no session event waits.
    ///
    /// Downloads finish on the network thread and come back as `WidgetCenter` reloads, so this
    /// checks in short steps; it is bounded by the caller's timeout.
    static func settle(_ driver: TimelineDriver, sessions: BackgroundSessionManager?) async {
        var quietRounds = 0
        while quietRounds < 2 {
            await driver.settle()
            if (sessions?.isIdle ?? true) && driver.runningProviderCalls == 0 {
                quietRounds += 1
            } else {
                quietRounds = 0
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
    }

    static func makeTemporaryDirectory() -> String? {
        var template = Array("/tmp/widgethost-snapshot-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
    }

    static func removeTree(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }
}
