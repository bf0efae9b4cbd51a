/// Why `SessionsReport` could not answer.
public enum SessionsReportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A running host holds the state directory's lock.
    case locked(String)
    /// The journal is not an SQLite database (or is damaged); SQLite's message.
    case notADatabase(path: String, message: String)

    public var description: String {
        switch self {
        case .locked(let dir): "another widgethost is using \(dir); stop it before purging its background sessions"
        case .notADatabase(let path, let message):
            "\(path) is not a database (\(message)); 'widgethost sessions --purge' moves it aside and starts a new one, "
                + "and so does the next start of widgethost"
        }
    }
}
