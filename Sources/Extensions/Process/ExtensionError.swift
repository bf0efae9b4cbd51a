/// Why a request to an extension failed; the description is what its panels show.
public enum ExtensionError: Error, Sendable, Equatable, CustomStringConvertible, Codable {
    /// No answer within `requestSeconds`.
    case timedOut(seconds: Int)
    /// The process could not be started.
    case launchFailed(String)
    /// The process ended, or broke the protocol and was stopped, with this request pending.
    case stopped(String)
    /// It crashed recently; the next launch waits until the backoff has passed.
    case restarting(reason: String, inSeconds: Int)
    /// It crashed `ExtensionHost.maximumCrashes` times in a row: no launch until a user reload
    /// (`r` on one of its panels, `R`) or a config reload.
    case failed(String)
    /// It answered with a JSON-RPC error.
    case remote(code: Int, message: String)
    /// Its answer was not a valid timeline (the first problems, with paths).
    case badAnswer(String)
    /// Its manifest went away (or was refused) at a config reload: the reason, for its panels.
    case removed(String)
    /// The host cancelled the request (the panel went away, or the scheduler's own timeout).
    case cancelled

    public var description: String {
        switch self {
        case .timedOut(let seconds): "timed out after \(seconds) s"
        case .launchFailed(let reason): "cannot start the extension: \(reason)"
        case .stopped(let reason): "the extension stopped: \(reason)"
        case .restarting(let reason, let seconds): "the extension stopped (\(reason)); restarting in \(seconds) s"
        case .failed(let reason): "the host gave up after \(ExtensionHost.maximumCrashes) crashes in a row (\(reason)); press r to try again"
        case .remote(let code, let message): "extension error \(code): \(message)"
        case .badAnswer(let problems): "bad answer from the extension: \(problems)"
        case .removed(let reason): reason
        case .cancelled: "cancelled"
        }
    }
}
