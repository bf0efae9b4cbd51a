import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Figure 4 (idle) and 6 (peak RSS): Benchmarks/idle.json (a leaderboard fetching every 10 s
/// from the bench's loopback server, a clock with minutes) in a 100x30 pseudo-terminal.
///
/// Wake-ups are voluntary context switches summed over /proc/PID/task/*/status, sampled every
/// 100 ms (reading /proc does not wake the process). What the dashboard *needs*: one wake-up
/// per minute boundary, plus per fetch the wake-ups that fetch cost — the wake-ups between
/// 0.3 s before and 1.5 s after the server answered it (a fetch near a minute boundary counts
/// as the median of the others). Each fetch is its own, since a 200 (the first, a changed
/// board) costs more than a 304. Wake-ups outside those windows are waste: a ticker would
/// show there.
enum IdleBench {
    struct Sample { var time: UInt64; var wall: Double; var voluntary: Int }

    static func measure(into report: Report, harness: Harness, duration window: Int) {
        guard let pty = harness.started("idle.json", for: "4 idle and 6 peak RSS", report: report) else { return }
        defer { pty.stop() }
        _ = pty.readUntilQuiet(quietMs: 1_000, maxMs: 5_000)  // the first fetch and its frame

        let bytesBefore = pty.output.count
        let requestsBefore = harness.requestCount()
        let first = pty.wakeups()
        var samples: [Sample] = []
        let start = monotonicNanos()
        while seconds(since: start) < Double(window) {
            samples.append(Sample(time: monotonicNanos(), wall: wallSeconds(), voluntary: pty.wakeups().voluntary))
            pty.read(timeoutMs: 100)  // keeps the terminal drained; a sample every ~100 ms
        }
        let last = pty.wakeups()
        let hwm = pty.statusField("VmHWM") ?? 0
        let bytes = pty.output.count - bytesBefore
        let fetches = harness.requests.withLock { Array($0[requestsBefore...]) }.filter { $0 >= start }

        let wallStart = samples.first?.wall ?? 0, wallEnd = samples.last?.wall ?? 0
        let boundaries = Int((wallEnd / 60).rounded(.down) - (wallStart / 60).rounded(.down))
        let boundaryTimes: [UInt64] = (0..<boundaries).map { k in
            let wall = ((wallStart / 60).rounded(.down) + Double(k + 1)) * 60
            return start &+ UInt64(max(0, wall - wallStart) * 1e9)
        }
        func wakeups(from a: UInt64, to b: UInt64) -> Int {
            let inside = samples.filter { $0.time >= a && $0.time <= b }
            guard let f = inside.first, let l = inside.last else { return 0 }
            return l.voluntary - f.voluntary
        }
        func near(_ t: UInt64, _ others: [UInt64], _ ms: UInt64) -> Bool {
            others.contains { ($0 > t ? $0 - t : t - $0) < ms * 1_000_000 }
        }
        let clear = fetches.filter { !near($0, boundaryTimes, 2_000) }
        let perFetchSamples = clear.map { Double(wakeups(from: $0 - 300_000_000, to: $0 + 1_500_000_000)) }
        let perFetch = quantile(perFetchSamples, 0.5)
        let total = last.voluntary - first.voluntary
        let nearBoundary = Double(fetches.count - clear.count) * (perFetch.isNaN ? 0 : perFetch)
        let need = Double(boundaries) * 1 + perFetchSamples.reduce(0, +) + nearBoundary
        let cpuMs = Double(last.cpuTicks - first.cpuTicks) * 10

        let workload = "Benchmarks/idle.json (leaderboard every 10 s from loopback + clock with minutes), 100x30, \(window) s idle"
        report.add(Figure(section: "4", name: "idle wake-ups (all threads)", value: Double(total), unit: "wake-ups",
                          workload: workload + "; threads \(first.threads)→\(last.threads)", target: nil, met: nil))
        report.add(Figure(section: "4", name: "idle fetches seen", value: Double(fetches.count), unit: "fetches",
                          workload: workload + "; requests the loopback server answered", target: nil, met: nil))
        report.add(Figure(section: "4", name: "idle wake-ups per fetch", value: perFetch, unit: "wake-ups",
                          workload: workload + "; median over fetches of the wake-ups from 0.3 s before to 1.5 s after the answer",
                          target: nil, met: nil))
        report.add(Figure(section: "4", name: "idle wake-ups needed", value: need, unit: "wake-ups",
                          workload: workload + "; \(boundaries) minute boundaries × 1 + each of \(clear.count) fetches' own window + \(fetches.count - clear.count) near a boundary × the median",
                          target: nil, met: nil))
        let ratio = need > 0 ? Double(total) / need : .nan
        report.add(Figure(section: "4", name: "idle wake-ups / needed", value: ratio, unit: "ratio",
                          workload: workload, target: "≤ 1.10", met: ratio <= 1.10))
        report.add(Figure(section: "4", name: "idle CPU time", value: cpuMs, unit: "ms", workload: workload + "; utime+stime, all threads",
                          target: nil, met: nil))
        report.add(Figure(section: "4", name: "idle bytes written", value: Double(bytes), unit: "bytes",
                          workload: workload + "; read from the pty master", target: nil, met: nil))
        report.add(Figure(section: "6", name: "peak RSS (VmHWM)", value: Double(hwm) / 1024, unit: "MB",
                          workload: workload + "; VmHWM at the end of the idle run", target: "≤ 25", met: Double(hwm) / 1024 <= 25))
    }

    static func wallSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}
