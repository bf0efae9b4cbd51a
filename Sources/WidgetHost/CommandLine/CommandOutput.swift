/// What a command produced: exit status and the text for stdout and stderr.
///
/// Commands return this instead of printing so tests can read it; `WidgetHostCommand.main`
/// writes it out. It is also an `Error`, so a step that fails can hand back its output.
public struct CommandOutput: Error, Sendable, Equatable {
    public var exitCode: Int32
    public var standardOutput: String
    public var standardError: String

    public init(exitCode: Int32, standardOutput: String = "", standardError: String = "") {
        self.exitCode = exitCode
        self.standardOutput = standardOutput
        self.standardError = standardError
    }
}
