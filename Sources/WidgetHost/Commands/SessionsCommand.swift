import BackgroundSessions
import TerminalUI

/// `widgethost sessions [--purge]`: lists background sessions, their tasks and the events
/// waiting for a widget; `--purge` clears them (refused while a dashboard runs on that state).
///
/// `SessionsReport` already makes every field from the journal inert and bounded (a server's
/// reason phrase, identifiers, URLs); each line printed here, errors too, goes through
/// TerminalUI's `Sanitizer` as well, so nothing but text and newlines reaches the terminal.
enum SessionsCommand {
    static func run(_ options: SessionsOptions, environment: HostEnvironment) -> CommandOutput {
        let directory: String
        do throws(ConfigLoadError) {
            directory = try ConfigLocator.stateDirectory(explicitPath: options.stateDirectory, environment: environment)
        } catch {
            return CommandOutput(exitCode: 2, standardError: inert("widgethost sessions: \(error)\n"))
        }
        do {
            let text = options.purge ? try SessionsReport.purge(stateDirectory: directory)
                                     : try SessionsReport.text(stateDirectory: directory)
            return CommandOutput(exitCode: 0, standardOutput: inert(text.hasSuffix("\n") ? text : text + "\n"))
        } catch {
            return CommandOutput(exitCode: 1, standardError: inert("widgethost sessions: \(error)\n"))
        }
    }

    /// `text` with every line sanitised; the newlines that end lines are kept.
    static func inert(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { Sanitizer.sanitize(String($0)) }.joined(separator: "\n")
    }
}
