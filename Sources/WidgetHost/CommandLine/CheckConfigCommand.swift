import TerminalUI

/// `widgethost check-config [PATH]`: validates a config file and reports every problem.
public enum CheckConfigCommand {
    /// Validates the file at `path`, or the one `ConfigLocator` finds.
    ///
    /// Exit 0 with `PATH: ok` and one `PATH: key.path: warning: …` line per warning on
    /// stdout; or exit 2 with one `PATH: key.path: …` line per error (or one line for an
    /// unreadable or malformed file) on stderr. With no path and no config file found, it
    /// says the default dashboard will be used and exits 0. The config's `theme` is loaded
    /// as the dashboard would load it; a theme that cannot be used is an error too.
    public static func run(path: String?, environment: HostEnvironment,
                           catalog: Catalog,
                           isKnownTimeZone: (@Sendable (String) -> Bool)? = nil) -> CommandOutput {
        let loader = ConfigLoader(validator: catalog.validator(isKnownTimeZone: isKnownTimeZone))
        do throws(ConfigLoadError) {
            let file: String
            if let path {
                guard ConfigFileReader.exists(path) else { throw .notFound(path: path, namedBy: "check-config") }
                file = path
            } else {
                switch try ConfigLocator.locateConfig(explicitPath: nil, environment: environment) {
                case .file(let found):
                    file = found
                case .defaultDashboard(let searched):
                    let looked = searched.isEmpty ? "" : " (looked for \(searched.joined(separator: ", ")))"
                    return CommandOutput(exitCode: 0,
                        standardOutput: "no config file found\(looked); the default dashboard will be used\n")
                }
            }
            let report = try loader.load(path: file)
            if !report.errors.isEmpty {
                let lines = ConfigDiagnostic.lines(report.errors, prefix: "\(file): ")
                return CommandOutput(exitCode: 2, standardError: lines)
            }
            // The dashboard refuses a theme it cannot load (exit 2): so does check-config.
            if let theme = report.config?.theme {
                do {
                    _ = try ThemeLoader(environment: environment.variables).load(theme)
                } catch {
                    let lines = "\(error)".split(separator: "\n").map { "\(file): theme: \($0)\n" }.joined()
                    return CommandOutput(exitCode: 2, standardError: lines)
                }
            }
            let warnings = ConfigDiagnostic.lines(report.warnings.map { ConfigDiagnostic(path: $0.path, message: "warning: \($0.message)") }, prefix: "\(file): ")
            return CommandOutput(exitCode: 0, standardOutput: "\(file): ok\n" + warnings)
        } catch {
            return CommandOutput(exitCode: 2, standardError: "\(error)\n")
        }
    }
}
