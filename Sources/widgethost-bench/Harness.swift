import FoundationEssentials
import LeaderboardServer
import Synchronization
import TerminalUI
#if canImport(Glibc)
import Glibc
#endif

/// What the terminal figures share: the `widgethost` binary next to this one, a scratch
/// directory, the loopback leaderboard server, and the pinned configs pointed at it.
final class Harness {
    let widgethost: String
    let benchmarks: String
    let scratch: String
    let server: LeaderboardService
    let port: UInt16
    /// Monotonic times of the requests the server answered (from its access log).
    let requests = RequestLog()
    private var runs = 0
    /// The state directory of the dashboard launched last (`widgethost activity --state-dir`).
    var lastStateDirectory: String { scratch + "/state-\(runs)" }

    /// The pinned configs name this address; the harness replaces it with the server's.
    static let pinnedAddress = "127.0.0.1:48787"

    init(benchmarks: String) throws {
        let exe = ProcFiles.readLink("/proc/self/exe") ?? CommandLine.arguments[0]
        widgethost = String(exe[..<(exe.lastIndex(of: "/") ?? exe.startIndex)]) + "/widgethost"
        self.benchmarks = benchmarks
        var template = Array("/tmp/widgethost-bench-XXXXXX".utf8CString)
        scratch = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        var configuration = LeaderboardServiceConfiguration(host: "127.0.0.1", port: 0)
        configuration.seed = 7
        configuration.tickSeconds = 1_000_000  // the board changes only when the bench says so
        let requests = self.requests
        server = LeaderboardService(configuration: configuration, log: { _ in
            let now = monotonicNanos()
            requests.append(now)
        })
        port = try server.start()
    }

    /// A copy of `Benchmarks/NAME` in the scratch directory, pointed at the loopback server.
    func config(_ name: String) -> String {
        let text = ProcFiles.read(benchmarks + "/" + name) ?? ""
        let path = scratch + "/" + name
        let replaced = text.replacing(Self.pinnedAddress, with: "127.0.0.1:\(port)")
        _ = FileManager.default.createFile(atPath: path, contents: Data(replaced.utf8))
        return path
    }

    /// Starts the dashboard with the pinned config `name` (nil: the default dashboard, with its
    /// bundled server) on a fresh state directory; `wrapper` runs it under another program
    /// (`strace -f -o FILE`), which then is the session's process; `extraArguments` follow
    /// the dashboard's own (`--extensions-dir DIR`).
    func launch(_ name: String?, columns: Int = 100, rows: Int = 30, wrapper: [String] = [],
                extraArguments: [String] = []) -> PtySession? {
        runs += 1
        let state = scratch + "/state-\(runs)"
        mkdir(state, 0o700)
        let environment = ["TERM=xterm-256color", "LANG=C.UTF-8", "LC_ALL=C.UTF-8", "HOME=\(scratch)",
                           "XDG_CONFIG_HOME=\(scratch)/config", "XDG_STATE_HOME=\(scratch)/xdg-state", "PATH=/usr/bin:/bin"]
        let arguments = (name.map { ["--config", config($0)] } ?? []) + ["--state-dir", state] + extraArguments
        guard let executable = wrapper.first else {
            return PtySession(executable: widgethost, arguments: arguments, environment: environment, columns: columns, rows: rows)
        }
        return PtySession(executable: executable, arguments: Array(wrapper.dropFirst()) + [widgethost] + arguments,
                          environment: environment, columns: columns, rows: rows)
    }

    /// `launch`, then waits until the terminal shows `mark` (the first frame's status bar, by
    /// default). On failure the dashboard is stopped and a note says which figures were not
    /// measured and why (the run then ends with status 1): nil.
    func started(_ name: String?, for figures: String, report: Report, mark: String = TerminalBench.statusBarMark,
                 timeoutMs: Int = 5_000, columns: Int = 100, rows: Int = 30, wrapper: [String] = [],
                 extraArguments: [String] = []) -> PtySession? {
        let config = name.map { "\(benchmarks)/\($0)" } ?? "the default dashboard"
        guard let pty = launch(name, columns: columns, rows: rows, wrapper: wrapper, extraArguments: extraArguments) else {
            report.notes.append("\(figures): not measured — \(config) could not be started")
            return nil
        }
        guard pty.readUntil(mark, timeoutMs: timeoutMs) != nil else {
            let tail = Sanitizer.sanitize(String(decoding: pty.output.suffix(200), as: UTF8.self))
            report.notes.append("\(figures): not measured — \(config) did not show \"\(mark)\" within \(timeoutMs / 1000) s"
                                + (pty.output.isEmpty ? " (no output)" : "; its last output: \(tail)"))
            pty.stop()
            return nil
        }
        return pty
    }

    func requestCount() -> Int { requests.withLock { $0.count } }

    func close() {
        server.stop()
        try? FileManager.default.removeItem(atPath: scratch)
    }
}

extension ProcFiles {
    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Monotonic times of requests, appended from the server's threads.
final class RequestLog: Sendable {
    private let times = Mutex<[UInt64]>([])

    func append(_ time: UInt64) { times.withLock { $0.append(time) } }

    func withLock<R>(_ body: (inout [UInt64]) -> R) -> R { times.withLock { body(&$0) } }
}
