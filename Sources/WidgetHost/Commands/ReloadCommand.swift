#if canImport(Glibc)
import Glibc
#endif
import CLinux
import JSONTree
import TerminalUI

/// `widgethost reload KIND ... | --all`: asks the dashboard running on the state directory,
/// through its control socket (`ControlServer`), to reload panels as `WidgetCenter` does.
enum ReloadCommand {
    /// How long the dashboard has to answer.
    static let answerSeconds = 5

    static func run(_ options: ReloadOptions, environment: HostEnvironment) -> CommandOutput {
        let directory: String
        do throws(ConfigLoadError) {
            directory = try ConfigLocator.stateDirectory(explicitPath: options.stateDirectory, environment: environment)
        } catch {
            return failure(2, "\(error)")
        }
        let path: String
        switch ControlPath.socket(stateDirectory: directory, environment: environment.variables, create: false) {
        case .success(let found): path = found
        case .failure(let problem): return failure(1, "\(problem)")
        }
        let fd = wh_unix_connect(path)
        if fd == -ENOENT || fd == -ECONNREFUSED {
            return failure(1, "no dashboard is running for \(directory) (no control socket at \(path))")
        }
        guard fd >= 0 else { return failure(1, "cannot reach the dashboard at \(path): \(String(cString: strerror(-fd)))") }
        defer { close(fd) }
        var timeout = timeval(tv_sec: answerSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let params: JSONValue = options.all ? .object(JSONObject(members: [("all", .bool(true))]))
            : .object(JSONObject(members: [("kinds", .array(options.kinds.map(JSONValue.string)))]))
        let request = JSONValue.object(JSONObject(members: [("jsonrpc", .string("2.0")), ("id", .integer(1)),
                                                            ("method", .string("reload")), ("params", params)])).jsonText + "\n"
        let bytes = Array(request.utf8)
        guard bytes.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == bytes.count else {
            return failure(1, "the dashboard at \(path) did not take the request: \(String(cString: strerror(errno)))")
        }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !answer.contains(10), answer.count < ControlServer.maximumLine {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                return failure(1, count == 0 ? "the dashboard closed the connection without an answer"
                                             : "no answer from the dashboard within \(answerSeconds) s")
            }
            answer += chunk[..<count]
        }
        let line = Array(answer.prefix { $0 != 10 })
        guard case .object(let reply)? = try? JSONParser(maximumBytes: ControlServer.maximumLine).parse(line) else {
            return failure(1, "the dashboard's answer is not JSON")
        }
        if case .object(let error)? = reply["error"], case .string(let message)? = error["message"] {
            return failure(1, Sanitizer.sanitize(message))
        }
        return CommandOutput(exitCode: 0)
    }

    private static func failure(_ status: Int32, _ message: String) -> CommandOutput {
        CommandOutput(exitCode: status, standardError: "widgethost reload: \(message)\n")
    }
}
