import FoundationEssentials

/// Figure 13 (pages): Benchmarks/pages.json (page 1 a note that never changes, page 2 a
/// seconds clock) in a 100x30 pseudo-terminal.
///
/// - 13a: a key switching the page → the last byte of its frame (read until 100 ms quiet).
/// - 13b: wake-ups over `window` seconds with page 1 shown, the seconds clock hidden; the
///   visible page needs only the status bar's minute (at most one per minute boundary), so
///   the target is that: a hidden clock that ticked would show 1 per second.
/// - 13c: the same with page 2 shown, for scale (about one per second).
enum PageBench {
    static func measure(into report: Report, harness: Harness, quick: Bool) {
        guard let pty = harness.started("pages.json", for: "13 pages", report: report) else { return }
        defer { pty.stop() }
        _ = pty.readUntilQuiet(quietMs: 500, maxMs: 5_000)
        var latencies: [Double] = []
        for i in 0..<(quick ? 10 : 40) {
            let t0 = monotonicNanos()
            pty.send(i % 2 == 0 ? "2" : "1")
            let burst = pty.readUntilQuiet(quietMs: 100, maxMs: 3_000)
            if let last = burst.last { latencies.append(Double(last - t0) / 1e6) }
        }
        let switching = "Benchmarks/pages.json, 100x30; 1 and 2 alternately to the pty, read until 100 ms quiet; \(latencies.count) switches"
        report.add(Figure(section: "13a", name: "page switch key → frame median", value: quantile(latencies, 0.5), unit: "ms",
                          workload: switching, target: "≤ 50", met: quantile(latencies, 0.5) <= 50))
        report.add(Figure(section: "13a", name: "page switch key → frame p99", value: quantile(latencies, 0.99), unit: "ms",
                          workload: switching, target: nil, met: nil))

        let window = quick ? 5.0 : 20.0
        pty.send("1")
        _ = pty.readUntilQuiet(quietMs: 300, maxMs: 3_000)
        let hidden = wakeups(of: pty, for: window)
        let boundaries = hidden.boundaries
        report.add(Figure(section: "13b", name: "wake-ups, seconds clock hidden", value: Double(hidden.count), unit: "per \(Int(window)) s",
                          workload: "Benchmarks/pages.json, page 1 shown (a note), the seconds clock on page 2; \(Int(window)) s; "
                              + "the visible page needs \(boundaries) (the status bar's minute)",
                          target: "≤ \(boundaries)", met: hidden.count <= boundaries))
        pty.send("2")
        _ = pty.readUntilQuiet(quietMs: 300, maxMs: 3_000)
        let shown = wakeups(of: pty, for: window)
        report.add(Figure(section: "13c", name: "wake-ups, seconds clock shown", value: Double(shown.count), unit: "per \(Int(window)) s",
                          workload: "Benchmarks/pages.json, page 2 shown: the clock ticks each second (for scale)",
                          target: nil, met: nil))
    }

    /// Voluntary context switches of every thread over `seconds`, the terminal kept drained,
    /// and how many minute boundaries fell inside.
    static func wakeups(of pty: PtySession, for seconds: Double) -> (count: Int, boundaries: Int) {
        let before = pty.wakeups().voluntary
        let wallStart = IdleBench.wallSeconds()
        let start = monotonicNanos()
        while Double(monotonicNanos() - start) / 1e9 < seconds { pty.read(timeoutMs: 100) }
        let boundaries = Int((IdleBench.wallSeconds() / 60).rounded(.down) - (wallStart / 60).rounded(.down))
        return (pty.wakeups().voluntary - before, boundaries)
    }
}
