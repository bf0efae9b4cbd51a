/// Why the terminal could not be taken over.
public enum TerminalError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `TERM` is not set (or empty).
    case missingTerminalType
    /// terminfo has no entry for `TERM`.
    case unknownTerminalType(String)
    /// Standard input or output is not a terminal.
    case notATerminal

    public var description: String {
        switch self {
        case .missingTerminalType:
            "TERM is not set: set TERM to a terminal your system knows, e.g. xterm-256color"
        case let .unknownTerminalType(name):
            "unknown terminal type '\(name)': set TERM to a terminal your system knows, e.g. xterm-256color"
        case .notATerminal:
            "standard input and output must be a terminal (use `widgethost snapshot` for text output)"
        }
    }
}
