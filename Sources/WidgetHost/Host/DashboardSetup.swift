import FoundationEssentials
import LeaderboardServer
import TerminalUI
import Widgets

/// What the dashboard and `snapshot` need before drawing anything: the config (a file, or the
/// default dashboard) and the theme, or the message and exit code that explain why not.
struct DashboardSetup {
    var config: DashboardConfig
    /// The config file in use; nil for the default dashboard.
    var configPath: String?
    var isDefaultDashboard: Bool { configPath == nil }
    var theme: Theme

    /// Finds and validates the config, then loads the theme (`--theme`, else the config's,
    /// else the default). Errors are exit code 2 with every problem listed.
    static func load(configPath explicitPath: String?, theme themeOverride: String?, environment: HostEnvironment,
                     catalog: Catalog) -> Result<DashboardSetup, CommandOutput> {
        var config = DashboardBuilder.defaultConfig(leaderboardURL: DashboardBuilder.defaultLeaderboardURL, catalog: catalog)
        var path: String?
        do throws(ConfigLoadError) {
            if case .file(let found) = try ConfigLocator.locateConfig(explicitPath: explicitPath, environment: environment) {
                path = found
                let report = try ConfigLoader(validator: catalog.validator()).load(path: found)
                guard let loaded = report.config else {
                    return .failure(CommandOutput(exitCode: 2, standardError: ConfigDiagnostic.lines(report.errors, prefix: "\(found): ")))
                }
                config = loaded
            }
        } catch {
            return .failure(CommandOutput(exitCode: 2, standardError: "widgethost: \(error)\n"))
        }
        do {
            let theme = try ThemeLoader(environment: environment.variables).load(themeOverride ?? config.theme ?? "default")
            return .success(DashboardSetup(config: config, configPath: path, theme: theme))
        } catch {
            return .failure(CommandOutput(exitCode: 2, standardError: "widgethost: \(error)\n"))
        }
    }
}

extension DashboardSetup {
    /// For the default dashboard: starts the bundled leaderboard server in this process on
    /// 127.0.0.1:8787, or a free port when that one is taken, and points the leaderboard at it.
    /// Its access log goes to `log`. Returns the running service (nil when not needed).
    ///
    /// A config file whose leaderboard reads the bundled server's address (the default
    /// dashboard saved by edit mode or `config add`, the examples) gets it too, on 8787 only:
    /// when the port is taken, whoever holds it answers and nothing is started.
    mutating func startBundledServer(log: (@Sendable (String) -> Void)?, catalog: Catalog) -> Result<LeaderboardService?, CommandOutput> {
        let readsBundledBoard = config.panels.flatMap(\.members).contains {
            $0.kind == "leaderboard" && $0.options.string("url") == DashboardBuilder.defaultLeaderboardURL
        }
        guard isDefaultDashboard || readsBundledBoard else { return .success(nil) }
        var configuration = LeaderboardServiceConfiguration(host: "127.0.0.1", port: 8787)
        configuration.fallbackToFreePort = isDefaultDashboard
        configuration.accessLogLinesPerSecond = 20   // the host log is a file: bound what clients can add to it
        let service = LeaderboardService(configuration: configuration, log: log)
        do {
            let port: UInt16
            do { port = try service.start() } catch where !isDefaultDashboard { return .success(nil) }
            if isDefaultDashboard {
                config = DashboardBuilder.defaultConfig(leaderboardURL: "http://127.0.0.1:\(port)/leaderboard", catalog: catalog)
            }
            return .success(service)
        } catch {
            return .failure(CommandOutput(exitCode: 1, standardError: "widgethost: cannot start the bundled leaderboard server: \(error)\n"))
        }
    }
}
