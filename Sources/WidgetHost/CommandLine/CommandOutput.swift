import TerminalUI

/// What a command produced: exit status and the text for stdout and stderr.
///
/// Commands return this instead of printing so tests can read it; `WidgetHostCommand.main`
/// writes it out. It is also an `Error`, so a step that fails can hand back its output.
public struct CommandOutput: Error, Sendable, Equatable {
    public var exitCode: Int32
    public var standardOutput: String
    public var standardError: String
    /// True when `standardOutput` carries escape sequences on purpose (`snapshot --color`,
    /// the `themes` swatches); the command has then made every string from outside inert
    /// itself.
    public var standardOutputHasEscapes: Bool

    public init(exitCode: Int32, standardOutput: String = "", standardError: String = "",
                standardOutputHasEscapes: Bool = false) {
        self.exitCode = exitCode
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.standardOutputHasEscapes = standardOutputHasEscapes
    }

    /// The output with every control character but the line feed shown inert
    /// (`Sanitizer.sanitizeLines`): what a command prints often quotes files, servers or the
    /// journal, and an escape sequence in any of them must never reach the terminal.
    public func inert() -> CommandOutput {
        var out = self
        out.standardError = Sanitizer.sanitizeLines(standardError)
        if !standardOutputHasEscapes { out.standardOutput = Sanitizer.sanitizeLines(standardOutput) }
        return out
    }
}
