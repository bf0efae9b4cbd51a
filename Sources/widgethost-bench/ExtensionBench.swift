import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Figure 10 (extensions, issue 15): the real `widgethost` with one extension panel, 100x30.
/// The extensions are `Benchmarks/extensions/` — `counter.sh` (POSIX sh) and `counter.py`
/// (Python) answer each `timeline` with one entry, "request N", and the policy "never", so
/// the screen changes on every request and nothing but the bench asks for one.
///
/// - launch → first entry: exec of the host until "request 1" is on the terminal, and from
///   the first frame (the placeholder) to it — what a process costs over a built-in widget;
/// - warm request: `r` on the panel with the extension running, reading until 100 ms quiet
///   (the time of the last byte: curses sends only the changed digits);
/// - idle: wake-ups of the host (all threads) in a window without a minute boundary (the
///   status bar's clock wakes once a minute), with the extension running and after its idle
///   exit (`counter-sh-exit`, `idleExitSeconds` 1), and of the running extension itself.
enum ExtensionBench {
    static func measure(into report: Report, harness: Harness, quick: Bool) {
        let directory = absolute(harness.benchmarks + "/extensions")
        for (language, config) in [("sh", "extension-sh.json"), ("python", "extension-py.json")] {
            launchAndRequests(language: language, config: config, directory: directory,
                              into: report, harness: harness, quick: quick)
        }
        idleStopped(directory: directory, into: report, harness: harness, window: quick ? 5 : 10)
        SwiftSDKBench.measure(into: report, harness: harness, quick: quick)
    }

    static func launchAndRequests(language: String, config: String, directory: String,
                                  into report: Report, harness: Harness, quick: Bool) {
        var toEntry: [Double] = []
        var afterFrame: [Double] = []
        for _ in 0..<(quick ? 3 : 10) {
            guard let pty = harness.launch(config, extraArguments: ["--extensions-dir", directory]) else { continue }
            let frame = pty.readUntil(TerminalBench.statusBarMark, timeoutMs: 5_000)
            let entry = pty.readUntil("request 1", timeoutMs: 5_000)
            if let frame, let entry {
                toEntry.append(Double(entry - pty.started) / 1e6)
                afterFrame.append(Double(entry &- frame) / 1e6)
            }
            pty.stop()
        }
        guard !toEntry.isEmpty else {
            report.notes.append("extension (\(language)): no entry on the screen; is \(directory) there?")
            return
        }
        let workload = "Benchmarks/\(config) (one \(language) extension panel), 100x30, median of \(toEntry.count) starts"
        report.add(Figure(section: "10", name: "extension (\(language)) exec → first entry", value: quantile(toEntry, 0.5),
                          unit: "ms", workload: workload + "; until \"request 1\" is read", target: nil, met: nil))
        report.add(Figure(section: "10", name: "extension (\(language)) first frame → entry", value: quantile(afterFrame, 0.5),
                          unit: "ms", workload: workload + "; from the first frame's status bar (placeholder shown)",
                          target: nil, met: nil))

        guard let pty = harness.started(config, for: "10 extension (\(language)) `r` → screen", report: report, mark: "request 1",
                                        extraArguments: ["--extensions-dir", directory]) else { return }
        defer { pty.stop() }
        _ = pty.readUntilQuiet(quietMs: 300, maxMs: 3_000)
        var latencies: [Double] = []
        for _ in 0..<(quick ? 10 : 100) {
            // Curses sends only the changed cells ("request 9" → "10"): read until quiet.
            let t0 = monotonicNanos()
            pty.send("r")
            guard let last = pty.readUntilQuiet(quietMs: 100, maxMs: 3_000).last else { continue }
            latencies.append(Double(last - t0) / 1e6)
        }
        let warm = "Benchmarks/\(config), 100x30, extension running; `r`, read until 100 ms quiet; \(latencies.count) tries"
        report.add(Figure(section: "10", name: "extension (\(language)) `r` → screen median", value: quantile(latencies, 0.5),
                          unit: "ms", workload: warm, target: nil, met: nil))
        report.add(Figure(section: "10", name: "extension (\(language)) `r` → screen p99", value: quantile(latencies, 0.99),
                          unit: "ms", workload: warm, target: nil, met: nil))

        guard language == "sh" else { return }
        let window = quick ? 5 : 10
        let children = childProcesses(of: pty.pid)
        let (host, extensionWakeups) = idleWindow(pty, seconds: window, others: children)
        let idle = "Benchmarks/\(config), 100x30, the extension running (pid \(children.map(String.init).joined(separator: ","))), \(window) s without a minute boundary"
        report.add(Figure(section: "10", name: "idle wake-ups, extension running", value: Double(host), unit: "wake-ups",
                          workload: idle + "; host, all threads", target: "0", met: host == 0))
        report.add(Figure(section: "10", name: "idle wake-ups of the extension", value: Double(extensionWakeups), unit: "wake-ups",
                          workload: idle + "; the extension's process", target: nil, met: nil))
    }

    /// `counter-sh-exit` leaves after 1 s idle: wait until its process is gone, then count.
    static func idleStopped(directory: String, into report: Report, harness: Harness, window: Int) {
        guard let pty = harness.started("extension-sh-exit.json", for: "10 idle wake-ups, extension stopped", report: report,
                                        mark: "request 1", extraArguments: ["--extensions-dir", directory]) else { return }
        defer { pty.stop() }
        let deadline = monotonicNanos() + 10_000_000_000
        while !childProcesses(of: pty.pid).isEmpty && monotonicNanos() < deadline {
            pty.read(timeoutMs: 100)
        }
        guard childProcesses(of: pty.pid).isEmpty else {
            report.notes.append("extension idle exit: the process was still there after 10 s")
            return
        }
        _ = pty.readUntilQuiet(quietMs: 300, maxMs: 2_000)
        let (host, _) = idleWindow(pty, seconds: window, others: [])
        report.add(Figure(section: "10", name: "idle wake-ups, extension stopped", value: Double(host), unit: "wake-ups",
                          workload: "Benchmarks/extension-sh-exit.json, 100x30, after the extension's idle exit, \(window) s without a minute boundary; host, all threads",
                          target: "0", met: host == 0))
    }

    /// Waits for a wall-clock window of `seconds` that holds no minute boundary, then returns
    /// the voluntary context switches of the host (all threads) and of `others` within it.
    static func idleWindow(_ pty: PtySession, seconds: Int, others: [pid_t]) -> (host: Int, others: Int) {
        while true {
            let second = Int(IdleBench.wallSeconds()) % 60
            if second >= 1 && second + seconds + 1 < 60 { break }
            pty.read(timeoutMs: 200)
        }
        let host0 = pty.wakeups().voluntary
        let others0 = others.map(voluntarySwitches).reduce(0, +)
        let start = monotonicNanos()
        while Double(monotonicNanos() - start) / 1e9 < Double(seconds) { pty.read(timeoutMs: 100) }
        return (pty.wakeups().voluntary - host0, others.map(voluntarySwitches).reduce(0, +) - others0)
    }

    static func voluntarySwitches(_ pid: pid_t) -> Int { PtySession.wakeups(of: pid).voluntary }

    /// Processes whose parent is `pid` (from /proc/*/stat's fourth field).
    static func childProcesses(of pid: pid_t) -> [pid_t] {
        ProcFiles.list("/proc").compactMap { name -> pid_t? in
            guard let child = pid_t(name), let stat = ProcFiles.read("/proc/\(name)/stat"),
                  let close = stat.lastIndex(of: ")") else { return nil }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == pid ? child : nil
        }
    }

    static func absolute(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
