#if canImport(Glibc)
import Glibc
#endif
import CLinux
import JSONTree
import TerminalUI

/// The client side of the control socket (`ControlServer`): one JSON-RPC request to the
/// dashboard running on a state directory, its answer awaited at most `answerSeconds`.
/// `widgethost reload` and `widgethost activity` go through it.
enum ControlClient {
    /// How long the dashboard has to answer.
    static let answerSeconds = 5

    /// Why a call failed: the exit status (1: no dashboard, no answer; 2: the dashboard found
    /// the request invalid) and the message for the user.
    struct Failure: Error {
        var status: Int32
        var message: String
    }

    /// The state directory `explicit` (or the default) names, or why there is none.
    static func stateDirectory(_ explicit: String?, environment: HostEnvironment) -> Result<String, Failure> {
        do throws(ConfigLoadError) {
            return .success(try ConfigLocator.stateDirectory(explicitPath: explicit, environment: environment))
        } catch {
            return .failure(Failure(status: 2, message: "\(error)"))
        }
    }

    /// Whether a dashboard holds the state directory (its `flock` on `<state>/lock`); read only,
    /// never taken for longer than the test.
    static func isLocked(_ directory: String) -> Bool {
        let fd = open((directory.hasSuffix("/") ? directory : directory + "/") + "lock", O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard flock(fd, LOCK_SH | LOCK_NB) == 0 else { return errno == EWOULDBLOCK }
        flock(fd, LOCK_UN)
        return false
    }

    /// Sends `method` with `params` to the dashboard on `directory`; its `result`, or why not.
    /// An error answer with code `invalidParamsStatus` maps to that status (else 1).
    static func call(_ method: String, params: JSONValue, stateDirectory directory: String, environment: HostEnvironment,
                     invalidParamsStatus: Int32 = 1) -> Result<JSONValue, Failure> {
        let path: String
        switch ControlPath.socket(stateDirectory: directory, environment: environment.variables, create: false) {
        case .success(let found): path = found
        case .failure(let problem): return .failure(Failure(status: 1, message: "\(problem)"))
        }
        let fd = wh_unix_connect(path)
        if fd == -ENOENT || fd == -ECONNREFUSED {
            if isLocked(directory) {
                return .failure(Failure(status: 1, message: "the dashboard running for \(directory) has no control socket at \(path): "
                    + "it was started with another XDG_RUNTIME_DIR, or could not make its socket (its log, "
                    + "\(directory)/widgethost.log, says why)"))
            }
            return .failure(Failure(status: 1, message: "no dashboard is running for \(directory) (no control socket at \(path))"))
        }
        guard fd >= 0 else {
            return .failure(Failure(status: 1, message: "cannot reach the dashboard at \(path): \(String(cString: strerror(-fd)))"))
        }
        defer { close(fd) }
        var timeout = timeval(tv_sec: answerSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = JSONValue.object(JSONObject(members: [("jsonrpc", .string("2.0")), ("id", .integer(1)),
                                                            ("method", .string(method)), ("params", params)])).jsonText + "\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            return .failure(Failure(status: 1, message: "the dashboard at \(path) did not take the request: \(String(cString: strerror(errno)))"))
        }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !answer.contains(10), answer.count < ControlServer.maximumLine {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                return .failure(Failure(status: 1, message: count == 0 ? "the dashboard closed the connection without an answer"
                                                                       : "no answer from the dashboard within \(answerSeconds) s"))
            }
            answer += chunk[..<count]
        }
        let line = Array(answer.prefix { $0 != 10 })
        guard case .object(let reply)? = try? JSONParser(maximumBytes: ControlServer.maximumLine).parse(line) else {
            return .failure(Failure(status: 1, message: "the dashboard's answer is not JSON"))
        }
        if case .object(let error)? = reply["error"], case .string(let message)? = error["message"] {
            let status = error["code"] == .integer(-32602) ? invalidParamsStatus : 1
            return .failure(Failure(status: status, message: Sanitizer.sanitize(message)))
        }
        return .success(reply["result"] ?? .null)
    }
}
