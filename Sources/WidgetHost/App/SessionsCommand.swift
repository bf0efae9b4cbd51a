import BackgroundSessions

/// `widgethost sessions [--purge]`: lists background sessions, their tasks and the events
/// waiting for a widget; `--purge` clears them (refused while a dashboard runs on that state).
enum SessionsCommand {
    static func run(_ options: SessionsOptions, environment: HostEnvironment) -> CommandOutput {
        let directory: String
        do throws(ConfigLoadError) {
            directory = try ConfigLocator.stateDirectory(explicitPath: options.stateDirectory, environment: environment)
        } catch {
            return CommandOutput(exitCode: 2, standardError: "widgethost sessions: \(error)\n")
        }
        do {
            let text = options.purge ? try SessionsReport.purge(stateDirectory: directory)
                                     : try SessionsReport.text(stateDirectory: directory)
            return CommandOutput(exitCode: 0, standardOutput: text.hasSuffix("\n") ? text : text + "\n")
        } catch {
            return CommandOutput(exitCode: 1, standardError: "widgethost sessions: \(error)\n")
        }
    }
}
