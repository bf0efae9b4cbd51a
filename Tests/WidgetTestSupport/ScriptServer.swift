#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A server run by one of the Python scripts in `Fixtures/` (`prometheus-stack.py`: the real
/// Prometheus and node exporter; `fake-prometheus.py`: a slow, huge or hostile one), on
/// 127.0.0.1, for a test.
///
/// The script prints its URL (and what else it started) on its first line of stdout; the
/// test waits for that line. A script that exits first, or prints nothing in time, throws:
/// a test that cannot start its server fails, it does not skip. `stop()` (also run by deinit)
/// sends SIGTERM to the script's process group (the script and the servers it started), then
/// SIGKILL, and reaps the script.
public final class ScriptServer {
    /// The first line's first word: the server's base URL (`http://127.0.0.1:PORT`,
    /// `mqtt://127.0.0.1:PORT` for the broker).
    public let url: String
    /// The first line's other words (the node exporter's address, for the stack).
    public let extras: [String]
    public let pid: pid_t
    /// The files the script's stdout and stderr go to (the fake's request log is stderr).
    public let standardOutputPath: String
    public let standardErrorPath: String
    private var exited = false

    private init(url: String, extras: [String], pid: pid_t, standardOutputPath: String, standardErrorPath: String) {
        self.url = url
        self.extras = extras
        self.pid = pid
        self.standardOutputPath = standardOutputPath
        self.standardErrorPath = standardErrorPath
    }

    deinit { stop() }

    /// `Fixtures/<name>`.
    public static func fixture(_ name: String) -> String {
        let here = #filePath
        return String(here[..<here.lastIndex(of: "/")!]) + "/Fixtures/" + name
    }

    /// The real Prometheus scraping the real node exporter every second, with their config and
    /// data under `directory`; returns once Prometheus has scraped the exporter once.
    public static func prometheus(directory: String) throws(HarnessError) -> ScriptServer {
        try start(script: "prometheus-stack.py", arguments: [directory], logDirectory: directory, timeout: .seconds(90))
    }

    /// `fake-prometheus.py ARGUMENTS…` (`--series N`, `--points N`, `--sleep S`, `--label TEXT`).
    public static func fakePrometheus(_ arguments: [String], logDirectory: String) throws(HarnessError) -> ScriptServer {
        try start(script: "fake-prometheus.py", arguments: arguments, logDirectory: logDirectory, timeout: .seconds(20))
    }

    /// Runs `python3 Fixtures/SCRIPT ARGUMENTS…` and waits (scaled) for its first line.
    public static func start(script: String, arguments: [String], logDirectory: String,
                             timeout: Duration) throws(HarnessError) -> ScriptServer {
        let stem = logDirectory + "/" + script + "-" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let outPath = stem + ".out", errPath = stem + ".err"
        let pid: pid_t
        do throws(ChildSpawn.Failure) {
            // No proxy variables: a lowercase http_proxy would route even 127.0.0.1 (DESIGN.md §5).
            pid = try ChildSpawn.start(["/usr/bin/python3", fixture(script)] + arguments,
                                       environment: ["PATH=/usr/sbin:/usr/bin:/sbin:/bin", "LANG=C.UTF-8"],
                                       standardOutput: .file(outPath), standardError: .file(errPath))
        } catch {
            throw HarnessError("cannot start \(script): \(error)")
        }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: TestTimeScale.scaled(timeout))
        while true {
            let output = (try? FileContents.text(at: outPath)) ?? ""
            if let newline = output.firstIndex(of: "\n") {
                let words = output[..<newline].split(separator: " ").map(String.init)
                guard let url = words.first, url.hasPrefix("http://127.0.0.1:") || url.hasPrefix("mqtt://127.0.0.1:") else {
                    Self.terminate(pid)
                    throw HarnessError("\(script) printed \(output.debugDescription), not a URL")
                }
                return ScriptServer(url: url, extras: Array(words.dropFirst()), pid: pid,
                                    standardOutputPath: outPath, standardErrorPath: errPath)
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                throw HarnessError("\(script) exited (status \(status)) before printing its URL; stderr: \((try? FileContents.text(at: errPath)) ?? "")")
            }
            if clock.now >= deadline {
                Self.terminate(pid)
                throw HarnessError("\(script) printed no URL within \(TestTimeScale.scaled(timeout)); stderr: \((try? FileContents.text(at: errPath)) ?? "")")
            }
            usleep(20_000)
        }
    }

    /// Everything the script has written to stderr so far (the fake's request log).
    public var standardError: String { (try? FileContents.text(at: standardErrorPath)) ?? "" }

    /// Stops the script and what it started; safe to call more than once.
    public func stop() {
        guard !exited else { return }
        exited = true
        Self.terminate(pid)
    }

    private static func terminate(_ pid: pid_t) {
        _ = kill(-pid, SIGTERM)
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: TestTimeScale.scaled(.seconds(10)))
        var status: Int32 = 0
        while clock.now < deadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno != EINTR) { break }
            usleep(10_000)
        }
        // The group: the script and any server it started that is still there.
        _ = kill(-pid, SIGKILL)
        while waitpid(pid, &status, WNOHANG) == 0 { usleep(10_000) }
    }
}
