import TerminalUI
import Widgets

/// `widgethost check-config [PATH]`: validates a config file and reports every problem.
public enum CheckConfigCommand {
    /// Validates the file at `path`, or the one `ConfigLocator` finds.
    ///
    /// Exit 0 with `PATH: ok` and one `PATH: key.path: warning: …` line per warning on
    /// stdout; or exit 2 with one `PATH: key.path: …` line per error (or one line for an
    /// unreadable or malformed file) on stderr. With no path and no config file found, it
    /// says the default dashboard will be used and exits 0. The config's `theme` is loaded
    /// as the dashboard would load it; a theme that cannot be used is an error too.
    ///
    /// - Parameter extensionProblems: how many extension manifests were refused (the caller
    ///   lists them): a bad extension is a bad file of the user's config, so a config fine
    ///   otherwise exits 2 too, saying which is which.
    public static func run(path: String?, environment: HostEnvironment,
                           catalog: Catalog, extensionProblems: Int = 0,
                           isKnownTimeZone: (@Sendable (String) -> Bool)? = nil) -> CommandOutput {
        func fine(_ subject: String, _ said: String) -> CommandOutput {
            guard extensionProblems > 0 else { return CommandOutput(exitCode: 0, standardOutput: said) }
            return CommandOutput(exitCode: 2, standardError: "\(subject); \(extensionProblems) problem(s) in extension manifests "
                                 + "(above): those extensions are skipped, so their kinds are unknown until fixed\n")
        }
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
                    let said = "no config file found\(looked); the default dashboard will be used"
                    return fine(said, said + "\n")
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
            var output = fine("\(file): the config itself is fine", "\(file): ok\n")
            output.standardOutput += warnings
            return output
        } catch {
            return CommandOutput(exitCode: 2, standardError: "\(error)\n")
        }
    }
}
