/// Why `SessionsReport.purge` refused.
public enum SessionsReportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A running host holds the state directory's lock.
    case locked(String)

    public var description: String {
        switch self {
        case .locked(let dir): "another widgethost is using \(dir); stop it before purging its background sessions"
        }
    }
}
