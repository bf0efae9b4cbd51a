import JSONTree

/// Why a config file could not be read or parsed (as opposed to failing validation).
///
/// `description` names the file: `/home/me/cfg.json: line 3, column 5: expected ':' …`.
/// All of these mean exit status 2.
public enum ConfigLoadError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file named by `--config` or `$WIDGETHOST_CONFIG` does not exist.
    case notFound(path: String, namedBy: String)
    /// The path exists but is not a regular file.
    case notAFile(path: String)
    /// The file could not be opened or read.
    case unreadable(path: String, reason: String)
    /// The file is larger than the limit, in bytes.
    case tooLarge(path: String, limit: Int)
    /// The file is not valid JSON.
    case syntax(path: String, JSONSyntaxError)
    /// None of `--state-dir`, `$XDG_STATE_HOME` and the home directory is available.
    case noStateDirectory

    public var description: String {
        switch self {
        case .notFound(let path, let namedBy): return "\(path): no such file (named by \(namedBy))"
        case .notAFile(let path): return "\(path): not a regular file"
        case .unreadable(let path, let reason): return "\(path): cannot read: \(reason)"
        case .tooLarge(let path, let limit): return "\(path): larger than the limit of \(limit) bytes"
        case .syntax(let path, let error): return "\(path): \(error)"
        case .noStateDirectory:
            return "cannot choose a state directory: pass --state-dir, or set XDG_STATE_HOME or HOME"
        }
    }
}
