import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Figure 12, idle with both engines (issue 28): an `mqtt` panel connected to a quiet
/// mosquitto and a `prometheus` panel on the real Prometheus with its node exporter (the
/// tests' fixture, `Tests/WidgetTestSupport/Fixtures/prometheus-stack.py`), refreshing every
/// 300 s, in a 100x30 pseudo-terminal. Wake-ups of all threads over a minute once both panels
/// have their data: what a minute needs is the MQTT keepalive ping and its answer and the
/// status bar's minute — the Prometheus panel fetches nothing in it.
enum EngineIdleBench {
    static func measure(into report: Report, harness: Harness, brokerPort: Int, quick: Bool) {
        let figures = "12 idle with mqtt and prometheus"
        let fixture = harness.benchmarks + "/../Tests/WidgetTestSupport/Fixtures/prometheus-stack.py"
        guard access("/usr/bin/prometheus", X_OK) == 0, access(fixture, R_OK) == 0 else {
            report.notes.append("\(figures): not measured — no /usr/bin/prometheus or no \(fixture)")
            return
        }
        let directory = harness.scratch + "/prometheus"
        mkdir(directory, 0o700)
        guard let (stack, url) = startStack(fixture: fixture, directory: directory) else {
            report.notes.append("\(figures): not measured — the Prometheus fixture did not start (see \(directory))")
            return
        }
        defer {
            kill(stack, SIGTERM)
            var status: Int32 = 0
            waitpid(stack, &status, 0)
        }
        let config = """
            { "panels": [
                { "kind": "mqtt", "family": "medium", "title": "Meter",
                  "options": { "broker": "mqtt://127.0.0.1:\(brokerPort)", "topics": ["bench/#"] } },
                { "kind": "prometheus", "family": "medium", "title": "Targets",
                  "options": { "url": "\(url)", "query": "up", "refreshSeconds": 300 } } ] }
            """
        let path = harness.scratch + "/engines.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(config.utf8))
        guard let pty = harness.started(nil, for: figures, report: report, extraArguments: ["--config", path]) else { return }
        defer { pty.stop() }
        // Both panels have their data: the broker's link is live and Prometheus answered.
        guard pty.readUntil("live", timeoutMs: 10_000) != nil else {
            report.notes.append("\(figures): not measured — the mqtt panel never said live")
            return
        }
        _ = pty.readUntilQuiet(quietMs: 2_000, maxMs: 15_000)
        let window = quick ? 15 : 60
        let before = pty.wakeups().voluntary
        let start = monotonicNanos()
        while Double(monotonicNanos() - start) / 1e9 < Double(window) { pty.read(timeoutMs: 100) }
        let idle = pty.wakeups().voluntary - before
        report.add(Figure(section: "12", name: "idle wake-ups, mqtt + prometheus (\(window) s)", value: Double(idle), unit: "wake-ups",
                          workload: "an mqtt panel on a quiet mosquitto and a prometheus panel (query up, refresh 300 s) on the real Prometheus, \(window) s, all threads; a minute needs the keepalive ping, its answer and the clock's minute",
                          target: window == 60 ? "≤ 3" : nil, met: window == 60 ? idle <= 3 : nil))
    }

    /// Starts the fixture and reads its first line ("URL EXPORTER"); nil if it does not come
    /// within 60 s.
    private static func startStack(fixture: String, directory: String) -> (pid_t, String)? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, directory + "/stderr", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        let arguments = ["/usr/bin/python3", fixture, directory]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [strdup("PATH=/usr/bin:/bin"), nil]
        defer { free(environment[0]) }
        var pid: pid_t = 0
        let rc = withCleanSignals { posix_spawn(&pid, arguments[0], &actions, &$0, &argv, &environment) }
        close(ends[1])
        defer { close(ends[0]) }
        guard rc == 0 else { return nil }
        var line: [UInt8] = []
        var byte: UInt8 = 0
        var pfd = pollfd(fd: ends[0], events: Int16(POLLIN), revents: 0)
        let deadline = monotonicNanos() + 60_000_000_000
        while monotonicNanos() < deadline, !line.contains(10) {
            guard poll(&pfd, 1, 1_000) >= 0 else { break }
            if pfd.revents != 0 {
                guard read(ends[0], &byte, 1) == 1 else { break }
                line.append(byte)
            }
        }
        guard let url = String(decoding: line, as: UTF8.self).split(separator: " ").first, url.hasPrefix("http") else {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            return nil
        }
        return (pid, String(url))
    }
}
