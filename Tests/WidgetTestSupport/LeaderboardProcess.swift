#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A `leaderboard-server` started for an end-to-end test, on 127.0.0.1.
///
/// Started with `ChildSpawn` (`posix_spawn`) in a process group of its own (stdin from /dev/null, default
/// signal dispositions), its stdout and stderr going to files in `logDirectory`, so nothing has
/// to drain a pipe and a test can read the request log (`standardError`) at any time. The URL
/// is the first line of stdout. `stop()` (also run by deinit) sends SIGTERM, then SIGKILL if
/// the server has not exited in time, and reaps it.
///
/// ```swift
/// let server = try LeaderboardProcess.start(arguments: ["--tick", "1", "--quiet"], logDirectory: home.path)
/// defer { server.stop() }
/// // … point a config at server.url …
/// server.stop()
/// let again = try server.restart()            // same port, fresh logs
/// ```
public final class LeaderboardProcess {
    /// The board's URL, as the server printed it (`http://127.0.0.1:PORT/leaderboard`).
    public let url: String
    /// The port it listens on.
    public let port: Int
    /// The server's process id (also its process group id).
    public let pid: pid_t
    /// The options it was started with, without `--host` and `--port`.
    public let arguments: [String]
    /// The files its stdout and stderr go to.
    public let standardOutputPath: String
    public let standardErrorPath: String

    private let logDirectory: String
    private var exited = false

    private init(url: String, port: Int, pid: pid_t, arguments: [String], logDirectory: String,
                 standardOutputPath: String, standardErrorPath: String) {
        self.url = url
        self.port = port
        self.pid = pid
        self.arguments = arguments
        self.logDirectory = logDirectory
        self.standardOutputPath = standardOutputPath
        self.standardErrorPath = standardErrorPath
    }

    deinit {
        stop()
    }

    /// Starts `leaderboard-server --host 127.0.0.1 --port PORT ARGUMENTS…` and waits (up to
    /// `timeout`, scaled by `TestTimeScale`) for the URL on its first line of stdout.
    ///
    /// - Parameters:
    ///   - arguments: further options (`--tick 1`, `--quiet`, `--fail-rate 1`…).
    ///   - port: 0 (the default) takes a free port; `restart()` passes the old one.
    ///   - logDirectory: an existing directory for `leaderboard-N.out` / `.err`.
    public static func start(arguments: [String], port: Int = 0, logDirectory: String,
                             timeout: Duration = .seconds(10)) throws(HarnessError) -> LeaderboardProcess {
        let executable: String
        do throws(BuiltProducts.Missing) { executable = try BuiltProducts.executable("leaderboard-server") } catch {
            throw HarnessError(error.description)
        }
        let serial = Self.nextSerial()
        let outPath = "\(logDirectory)/leaderboard-\(serial).out"
        let errPath = "\(logDirectory)/leaderboard-\(serial).err"
        let argv = [executable, "--host", "127.0.0.1", "--port", "\(port)"] + arguments
        let pid = try spawn(argv, standardOutput: outPath, standardError: errPath)

        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: TestTimeScale.scaled(timeout))
        while true {
            let output = Self.read(outPath)
            if let newline = output.firstIndex(of: "\n") {
                let url = String(output[..<newline])
                guard let port = Self.port(of: url) else {
                    Self.terminate(pid)
                    throw HarnessError("leaderboard-server printed \(url.debugDescription), not a URL with a port")
                }
                return LeaderboardProcess(url: url, port: port, pid: pid, arguments: arguments,
                                          logDirectory: logDirectory, standardOutputPath: outPath,
                                          standardErrorPath: errPath)
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw HarnessError("leaderboard-server exited (status \(status)) before printing its URL; stderr: \(Self.read(errPath))")
            }
            if clock.now >= deadline {
                Self.terminate(pid)
                throw HarnessError("leaderboard-server printed no URL within \(TestTimeScale.scaled(timeout)); stderr: \(Self.read(errPath))")
            }
            usleep(20_000)
        }
    }

    /// Stops this server if it still runs, then starts a new one with the same options on the
    /// same port (the listening socket uses SO_REUSEADDR, so TIME_WAIT does not block it).
    public func restart(timeout: Duration = .seconds(10)) throws(HarnessError) -> LeaderboardProcess {
        stop()
        return try Self.start(arguments: arguments, port: port, logDirectory: logDirectory, timeout: timeout)
    }

    /// Everything the server has written to stderr so far (its request log unless `--quiet`).
    public var standardError: String { Self.read(standardErrorPath) }

    /// The request log lines for the board (`"GET /leaderboard"`) written so far.
    public var boardRequests: [String] {
        standardError.split(separator: "\n").map(String.init).filter { $0.contains("\"GET /leaderboard") }
    }

    /// SIGTERM, then SIGKILL after `grace` (scaled) if it is still running; reaps it. Safe to
    /// call more than once.
    public func stop(grace: Duration = .seconds(5)) {
        guard !exited else { return }
        exited = true
        Self.terminate(pid, grace: grace)
    }

    // MARK: - Private

    private static let counter = Atomic<Int>(0)

    private static func nextSerial() -> Int {
        counter.wrappingAdd(1, ordering: .relaxed).newValue
    }

    private static func terminate(_ pid: pid_t, grace: Duration = .seconds(5)) {
        _ = kill(pid, SIGTERM)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: TestTimeScale.scaled(grace))
        var status: Int32 = 0
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { return }
            if clock.now >= deadline { break }
            usleep(10_000)
        }
        _ = kill(pid, SIGKILL)
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    private static func spawn(_ argv: [String], standardOutput: String, standardError: String) throws(HarnessError) -> pid_t {
        do throws(ChildSpawn.Failure) {
            // No proxy variables: a lowercase http_proxy would route even 127.0.0.1 (DESIGN.md §5).
            return try ChildSpawn.start(argv, environment: ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"],
                                        standardOutput: .file(standardOutput), standardError: .file(standardError))
        } catch {
            throw HarnessError("cannot start \(argv[0]): \(error)")
        }
    }

    /// The port in `http://HOST:PORT/…`.
    private static func port(of url: String) -> Int? {
        guard url.hasPrefix("http://127.0.0.1:") else { return nil }
        let rest = url.dropFirst("http://127.0.0.1:".count)
        return Int(rest.prefix { $0.isNumber })
    }

    private static func read(_ path: String) -> String {
        (try? FileContents.text(at: path)) ?? ""
    }
}
