import Glibc

/// Why the server could not start.
public enum ServerError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A system call failed: the call's name and `errno` (or the returned code).
    case system(String, Int32)
    /// The host is not a numeric IPv4 or IPv6 address.
    case badHost(String)
    /// `start()` was called on a server that is running or was stopped.
    case notStartable

    public var description: String {
        switch self {
        case .system(let call, let code): return "\(call) failed: \(String(cString: strerror(code)))"
        case .badHost(let host): return "not a numeric address: \(host)"
        case .notStartable: return "the server was already started"
        }
    }
}
