import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Figures 3, 5 (latency) and 6 (start-up): the real `widgethost` (curses backend) in a
/// pseudo-terminal of 100x30, TERM=xterm-256color, UTF-8.
enum TerminalBench {
    /// The status bar's last words: when they arrive the first frame is complete (curses
    /// writes rows top to bottom and the status bar is the last row).
    static let statusBarMark = "quit"

    static func measure(into report: Report, harness: Harness, quick: Bool) {
        startup(into: report, harness: harness, runs: quick ? 3 : 10)
        clockTick(into: report, harness: harness, duration: quick ? 5 : 15)
        boardChange(into: report, harness: harness, tries: quick ? 10 : 100)
    }

    /// 6: exec → first complete frame, and 3a: the bytes of that frame.
    static func startup(into report: Report, harness: Harness, runs: Int) {
        var times: [Double] = []
        var bytes: [Double] = []
        for _ in 0..<runs {
            guard let pty = harness.launch("leaderboard-manual.json") else { continue }
            if let seen = pty.readUntil(statusBarMark, timeoutMs: 5_000) {
                times.append(Double(seen - pty.started) / 1e6)
                bytes.append(Double(pty.output.count))
            }
            pty.stop()
        }
        let workload = "Benchmarks/leaderboard-manual.json (leaderboard large + clock), 100x30, median of \(times.count) starts"
        report.add(Figure(section: "3a", name: "first full frame", value: quantile(bytes, 0.5), unit: "bytes",
                          workload: workload + "; bytes until the status bar row", target: nil, met: nil))
        let median = quantile(times, 0.5)
        report.add(Figure(section: "6", name: "start-up exec → first frame", value: median, unit: "ms",
                          workload: workload + "; forkpty+exec until the status bar row is read", target: "≤ 50", met: median <= 50))
    }

    /// 3b: a clock with seconds; the bytes of each second's repaint (median of the bursts).
    static func clockTick(into report: Report, harness: Harness, duration: Int) {
        guard let pty = harness.started("clock-seconds.json", for: "3b clock second tick", report: report) else { return }
        defer { pty.stop() }
        _ = pty.readUntilQuiet(quietMs: 300, maxMs: 3_000)
        var bursts: [Double] = []
        let start = monotonicNanos()
        while seconds(since: start) < Double(duration) {
            let first = pty.read(timeoutMs: 1_500)
            guard first > 0 else { continue }
            bursts.append(Double(first + pty.readUntilQuiet(quietMs: 100, maxMs: 900).bytes))
        }
        let median = quantile(bursts, 0.5)
        report.add(Figure(section: "3b", name: "clock second tick", value: median, unit: "bytes/tick",
                          workload: "Benchmarks/clock-seconds.json (one small clock with seconds), 100x30; median of \(bursts.count) ticks (max \(Int(bursts.max() ?? 0)))",
                          target: "≤ 64", met: median <= 64))
    }

    /// 3c (bytes of a board change) and 5 (latency of `r` → changed cells) on
    /// Benchmarks/leaderboard-manual.json: each try plays one game tick on the server (one
    /// battle: the winner's exp, both heroes' health, maybe the ranking), sends `r` and reads
    /// until the terminal is quiet for 100 ms; the time of the last byte is when the changed
    /// cells arrived.
    static func boardChange(into report: Report, harness: Harness, tries: Int) {
        guard let pty = harness.started("leaderboard-manual.json", for: "3c board change, 5 `r` → screen", report: report) else { return }
        defer { pty.stop() }
        _ = pty.readUntilQuiet(quietMs: 500, maxMs: 5_000)
        var latencies: [Double] = []
        var afterData: [Double] = []
        var bytes: [Double] = []
        for _ in 0..<tries {
            harness.server.advance(ticks: 1)
            let requestsBefore = harness.requestCount()
            let t0 = monotonicNanos()
            pty.send("r")
            let burst = pty.readUntilQuiet(quietMs: 100, maxMs: 3_000)
            guard let last = burst.last else { continue }
            latencies.append(Double(last - t0) / 1e6)
            bytes.append(Double(burst.bytes))
            // The server logs a request once it is answered; the first one logged since `r`.
            let served = harness.requests.withLock { Array($0[requestsBefore...]) }.first { $0 >= t0 && $0 <= last }
            if let served { afterData.append(Double(last - served) / 1e6) }
        }
        report.add(Figure(section: "3c", name: "board change (one game tick)", value: quantile(bytes, 0.5), unit: "bytes",
                          workload: "Benchmarks/leaderboard-manual.json, 100x30; one server tick (one battle) then `r`; median of \(bytes.count)",
                          target: nil, met: nil))
        let workload = "Benchmarks/leaderboard-manual.json, 100x30; server tick, `r` to the pty, read until 100 ms quiet; \(latencies.count) tries"
        report.add(Figure(section: "5", name: "`r` → screen median", value: quantile(latencies, 0.5), unit: "ms",
                          workload: workload, target: nil, met: nil))
        report.add(Figure(section: "5", name: "`r` → screen p99", value: quantile(latencies, 0.99), unit: "ms",
                          workload: workload, target: nil, met: nil))
        let dataMedian = quantile(afterData, 0.5)
        report.add(Figure(section: "5", name: "data served → screen median", value: dataMedian, unit: "ms",
                          workload: workload + "; from the server's answer to the last byte on the terminal", target: "≤ 50",
                          met: dataMedian <= 50))
        report.add(Figure(section: "5", name: "data served → screen p99", value: quantile(afterData, 0.99), unit: "ms",
                          workload: workload, target: "≤ 50", met: quantile(afterData, 0.99) <= 50))
    }
}

