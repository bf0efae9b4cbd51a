import FoundationEssentials
import TerminalUI

/// What the dashboard and `snapshot` need before drawing anything: the config (a file, or the
/// default dashboard) and the theme, or the message and exit code that explain why not.
struct DashboardSetup {
    var config: DashboardConfig
    /// The config file in use; nil for the default dashboard.
    var configPath: String?
    var theme: Theme

    /// Finds and validates the config, then loads the theme (`--theme`, else the config's,
    /// else the default). Errors are exit code 2 with every problem listed.
    static func load(configPath explicitPath: String?, theme themeOverride: String?, environment: HostEnvironment,
                     catalog: WidgetCatalog) -> Result<DashboardSetup, CommandOutput> {
        var config = DashboardBuilder.defaultConfig
        var path: String?
        do throws(ConfigLoadError) {
            if case .file(let found) = try ConfigLocator.locateConfig(explicitPath: explicitPath, environment: environment) {
                path = found
                let report = try ConfigLoader(validator: ConfigValidator(descriptors: catalog.descriptors)).load(path: found)
                guard let loaded = report.config else {
                    return .failure(CommandOutput(exitCode: 2, standardError: report.errors.map { "\(found): \($0)\n" }.joined()))
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
