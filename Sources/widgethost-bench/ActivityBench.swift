import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Figure 14 (Live Activities) on Benchmarks/activities.json in a 100x30 pseudo-terminal.
///
/// - 14a: `widgethost activity update bench --progress P` started → the last byte of the frame
///   that shows it (read until 50 ms quiet): the command's own start-up, the control socket,
///   the dashboard's loop and the terminal, as a script sees it.
/// - 14a': the same request written to the control socket by the bench itself → screen: the
///   dashboard's part alone (the command's start-up — dynamic linking, ~20 ms on this machine
///   — left out).
/// - 14b: wake-ups over `window` seconds with the control socket open and an activity shown
///   (no stale-after, nothing to dismiss): no timer is armed, so only the status bar's minute.
enum ActivityBench {
    static func measure(into report: Report, harness: Harness, quick: Bool) {
        guard let pty = harness.started("activities.json", for: "15 activities", report: report) else { return }
        defer { pty.stop() }
        let state = harness.lastStateDirectory
        _ = pty.readUntilQuiet(quietMs: 300, maxMs: 5_000)
        guard run(harness.widgethost, ["activity", "start", "bench", "--title", "Bench", "--progress", "0", "--state-dir", state]) == 0 else {
            report.notes.append("15 activities: widgethost activity start failed")
            return
        }
        _ = pty.readUntilQuiet(quietMs: 200, maxMs: 3_000)
        var latencies: [Double] = []
        for i in 0..<(quick ? 10 : 50) {
            let progress = String(Double(i % 99 + 1) / 100)
            let t0 = monotonicNanos()
            guard run(harness.widgethost, ["activity", "update", "bench", "--progress", progress, "--state-dir", state]) == 0 else { continue }
            let burst = pty.readUntilQuiet(quietMs: 50, maxMs: 3_000)
            if let last = burst.last { latencies.append(Double(last - t0) / 1e6) }
        }
        guard !latencies.isEmpty else {
            report.notes.append("15 activities: no update reached the screen")
            return
        }
        let workload = "Benchmarks/activities.json, 100x30; `widgethost activity update` spawned, read until 50 ms quiet; \(latencies.count) updates"
        report.add(Figure(section: "15a", name: "activity update → screen median", value: quantile(latencies, 0.5), unit: "ms",
                          workload: workload, target: nil, met: nil))
        report.add(Figure(section: "15a", name: "activity update → screen p99", value: quantile(latencies, 0.99), unit: "ms",
                          workload: workload, target: "≤ 20", met: quantile(latencies, 0.99) <= 20))
        var direct: [Double] = []
        for i in 0..<(quick ? 10 : 50) {
            let t0 = monotonicNanos()
            guard socketUpdate(state + "/control.sock", progress: Double(i % 99 + 1) / 100) else { continue }
            let burst = pty.readUntilQuiet(quietMs: 50, maxMs: 3_000)
            if let last = burst.last { direct.append(Double(last - t0) / 1e6) }
        }
        let socketWorkload = "the same, the request written to the control socket by the bench (no process start); \(direct.count) updates"
        report.add(Figure(section: "15a'", name: "socket request → screen median", value: quantile(direct, 0.5), unit: "ms",
                          workload: socketWorkload, target: nil, met: nil))
        report.add(Figure(section: "15a'", name: "socket request → screen p99", value: quantile(direct, 0.99), unit: "ms",
                          workload: socketWorkload, target: "≤ 20", met: quantile(direct, 0.99) <= 20))
        let window = quick ? 5.0 : 20.0
        let idle = PageBench.wakeups(of: pty, for: window)
        report.add(Figure(section: "15b", name: "idle wake-ups, socket open, activity shown", value: Double(idle.count),
                          unit: "per \(Int(window)) s",
                          workload: "Benchmarks/activities.json, one running activity, the control socket open; \(Int(window)) s; "
                              + "\(idle.boundaries) minute boundaries (the status bar's clock)",
                          target: "≤ \(idle.boundaries)", met: idle.count <= idle.boundaries))
    }

    /// One `activity update bench` request on the control socket at `path`, its answer read.
    private static func socketUpdate(_ path: String, progress: Double) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in for (i, byte) in bytes.enumerated() { raw[i] = byte } }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else { return false }
        let line = #"{"jsonrpc":"2.0","id":1,"method":"activity","params":{"action":"update","id":"bench","progress":\#(progress)}}"# + "\n"
        guard Array(line.utf8).withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == line.utf8.count else { return false }
        var answer = [UInt8](repeating: 0, count: 4096)
        return answer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) } > 0
    }

    /// Runs `program` with `arguments` (output discarded) and waits for it; its exit status.
    private static func run(_ program: String, _ arguments: [String]) -> Int32 {
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let variables: [String] = ["PATH=/usr/bin:/bin", "LANG=C.UTF-8"]
        let environment: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer { environment.forEach { free($0) } }
        let spawned = withCleanSignals { attributes in posix_spawn(&pid, program, &actions, &attributes, argv, environment) }
        guard spawned == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    }
}
