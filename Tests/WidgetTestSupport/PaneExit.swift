/// How the program in a harness pane ended.
public enum PaneExit: Equatable, Sendable, CustomStringConvertible {
    /// It exited with this status.
    case exited(Int32)
    /// A signal ended it (`SIGTERM` is 15).
    case signalled(Int32)

    public var description: String {
        switch self {
        case .exited(let status): "exit status \(status)"
        case .signalled(let signal): "killed by signal \(signal)"
        }
    }
}
