import FoundationEssentials
import TerminalUI

/// Reading the config again, and the one place for what follows once a reloaded config is in
/// use (`applied`).
///
/// `load()` answers with messages for the dashboard: `.widgetsFound` and `.extensionsFound` with its word on the
/// extensions skipped now (when it rescans them), then `.configLoaded` for a valid config whose
/// theme loads (the same rules as at start-up), else `.configRejected` with the notice saying
/// why — a bad reload keeps the dashboard as it was, never ends it.
@MainActor
final class ConfigReloader {
    /// The config file; nil for the default dashboard (nothing to reload).
    private(set) var path: String?
    var catalog: Catalog
    /// The widgets panels are built from; extension kinds change when a reload finds the
    /// extensions again (`rediscovery`).
    private(set) var widgets: BoundWidgets
    /// Finds extensions again before each reload reads the config (issue 15); nil in tests.
    var rediscovery: ExtensionRediscovery?
    private let themeOverride: String?
    let environment: HostEnvironment
    private let log: HostLog?
    /// Called with each config once it is in use (the dashboard's sessions and extensions).
    var onApplied: (DashboardConfig) -> Void = { _ in }

    init(path: String?, catalog: Catalog, widgets: BoundWidgets, themeOverride: String?, environment: HostEnvironment,
         log: HostLog?) {
        self.path = path
        self.catalog = catalog
        self.widgets = widgets
        self.themeOverride = themeOverride
        self.environment = environment
        self.log = log
    }

    /// Finds the extensions again, then reads and checks the config file and its theme
    /// against the catalogue that holds them.
    func load(reason: String) -> [DashboardMessage] {
        log?.info(reason)
        guard let path else { return [.configRejected(notice: nil)] }
        guard let rediscovery else { return [verdict(path: path)] }
        var notice: String?
        rediscovery.apply(catalog: &catalog, widgets: &widgets, notice: &notice)
        return [.widgetsFound(widgets), .extensionsFound(notice: notice), verdict(path: path)]
    }

    /// The config at `path` checked against the catalogue as it is now.
    private func verdict(path: String) -> DashboardMessage {
        do throws(ConfigLoadError) {
            let report = try ConfigLoader(validator: catalog.validator()).load(path: path)
            guard let config = report.config else {
                let first = report.errors.first.map { "\($0)" } ?? "invalid"
                let more = report.errors.count > 1 ? " (+\(report.errors.count - 1) more)" : ""
                for error in report.errors { log?.error("\(path): \(error)") }
                return .configRejected(notice: "config not reloaded: \(first)\(more)")
            }
            // A theme that does not load refuses the whole config, as at start-up.
            do {
                let theme = try ThemeLoader(environment: environment.variables).load(themeOverride ?? config.theme ?? "default")
                return .configLoaded(config, theme)
            } catch {
                log?.error("\(path): \(error)")
                return .configRejected(notice: "config not reloaded: \(error)")
            }
        } catch {
            log?.error("\(error)")
            return .configRejected(notice: "config not reloaded: \(error)")
        }
    }

    /// Reads the config from `newPath` from now on (a default dashboard saved by edit mode).
    func adopt(path newPath: String) { path = newPath }

    /// A reloaded config is in use (its panels are built).
    func applied(_ config: DashboardConfig) {
        onApplied(config)
        log?.info("config reloaded: \(config.panels.count) panels")
    }
}
