import FoundationEssentials
import TerminalUI
import WidgetHost
#if canImport(Glibc)
import Glibc
#endif

/// Figure 14, cost at scale (issue 30): the pinned `Benchmarks/scale-48.json` (4 pages of 12:
/// per page 3 `http-json` every 5 s from the loopback server, 3 seconds clocks, 2 `command`
/// every 10 s, 2 `system` every 2 s, an extension, a static text; the first page shown) and its
/// first one and two pages (`scale-12.json`, `scale-24.json`), each in a 300x100 terminal.
///
/// What the dashboard *needs* is measured, not assumed: three calibration runs of one unit of
/// each kind of work alone give its cost in wake-ups (all threads) — the shown page's local
/// work (its clocks and systems: wake-ups a second), one `http-json` (wake-ups a fetch), one
/// `command` (wake-ups a run). A dashboard then needs the shown page's rate plus each fetch
/// the server saw and each command run (counted from the file each run appends to) at those
/// costs; panels that only exist (hidden clocks and systems, a text, an extension with
/// nothing to do) need nothing. Cost must grow with what changes, not with what exists.
enum ScaleBench {
    static let section = "14"
    static let size = (columns: 300, rows: 100)

    /// One run's counts over its window.
    struct Run {
        var seconds: Double
        var wakeups: Int
        var cpuTicks: Int
        var fetches: Int
        var commandRuns: Int
        var peakKiB: Int
        /// Resident KiB of each extension process the host holds.
        var extensionKiB: [Int]
    }

    @MainActor
    static func measure(into report: Report, harness: Harness, quick: Bool) {
        let window = quick ? 10 : 40
        let runsFile = harness.scratch + "/scale-runs.txt"
        let unit = """
            { "minimumReloadSeconds": 1, "dailyReloadBudget": 100000, "panels": [ %@ ] }
            """
        func config(_ panels: String) -> String { unit.replacing("%@", with: panels) }
        let command = #"{ "kind": "command", "family": "small", "options": { "argv": ["/bin/sh", "-c", "echo run >> @RUNS@; echo run"], "intervalSeconds": 10 } }"#
        let local = (0..<3).map { _ in #"{ "kind": "clock", "family": "small", "options": { "timeZone": "UTC", "seconds": true } }"# }
            + (0..<2).map { _ in #"{ "kind": "system", "family": "small", "options": { "intervalSeconds": 2 } }"# }
        let fetch = #"{ "kind": "http-json", "family": "small", "options": { "url": "http://127.0.0.1:48787/leaderboard?feed=1", "refreshSeconds": 5, "fields": [ { "label": "Leader", "pointer": "/heroes/0/name" } ] } }"#

        // The cost of each unit of work, alone.
        guard let shown = run(config(local.joined(separator: ",")), name: "scale-local.json", window: window, harness: harness,
                              runsFile: runsFile, report: report),
              let oneFetch = run(config(fetch), name: "scale-fetch.json", window: window, harness: harness, runsFile: runsFile, report: report),
              let oneCommand = run(config(command), name: "scale-command.json", window: window, harness: harness, runsFile: runsFile, report: report)
        else { return }
        let perSecond = Double(shown.wakeups) / shown.seconds
        let perFetch = Double(oneFetch.wakeups) / Double(max(1, oneFetch.fetches))
        let perRun = Double(oneCommand.wakeups) / Double(max(1, oneCommand.commandRuns))
        let calibration = "alone for \(window) s: 3 seconds clocks + 2 systems shown \(Report.format(perSecond))/s, one http-json \(Report.format(perFetch))/fetch (\(oneFetch.fetches) fetches), one command \(Report.format(perRun))/run (\(oneCommand.commandRuns) runs)"
        report.add(Figure(section: section, name: "scale: shown page's local work", value: perSecond, unit: "wake-ups/s",
                          workload: calibration, target: nil, met: nil))
        report.add(Figure(section: section, name: "scale: one http-json fetch (304)", value: perFetch, unit: "wake-ups",
                          workload: calibration, target: nil, met: nil))
        report.add(Figure(section: section, name: "scale: one command run", value: perRun, unit: "wake-ups",
                          workload: calibration, target: nil, met: nil))

        for panels in [12, 24, 48] {
            let name = "scale-\(panels).json"
            let text = ProcFiles.read(harness.benchmarks + "/" + name) ?? ""
            guard let measured = run(text, name: name, window: quick ? 15 : 60, harness: harness, runsFile: runsFile,
                                     report: report, extensions: true)
            else { continue }
            let need = perSecond * measured.seconds + perFetch * Double(measured.fetches) + perRun * Double(measured.commandRuns)
            let ratio = need > 0 ? Double(measured.wakeups) / need : .nan
            let cpu = Double(measured.cpuTicks) * 10 / (measured.seconds * 1_000) * 100
            let mib = Double(measured.peakKiB) / 1024
            let extensionMiB = measured.extensionKiB.isEmpty ? Double.nan
                : Double(measured.extensionKiB.reduce(0, +)) / Double(measured.extensionKiB.count) / 1024
            let workload = "Benchmarks/\(name) (\(panels / 12) page\(panels == 12 ? "" : "s") of 12, the first shown), \(size.columns)x\(size.rows), \(Int(measured.seconds)) s: \(measured.wakeups) wake-ups, \(measured.fetches) fetches, \(measured.commandRuns) command runs"
            report.add(Figure(section: section, name: "scale \(panels) panels wake-ups/s", value: Double(measured.wakeups) / measured.seconds,
                              unit: "wake-ups/s", workload: workload + "; all threads", target: nil, met: nil))
            report.add(Figure(section: section, name: "scale \(panels) wake-ups / needed", value: ratio, unit: "ratio",
                              workload: workload + "; needed: \(Report.format(need)) (shown page's rate × s + fetches × their cost + runs × theirs; " + calibration + ")",
                              target: panels == 48 ? "≤ 1.10" : nil, met: panels == 48 ? ratio <= 1.10 : nil))
            report.add(Figure(section: section, name: "scale \(panels) CPU", value: cpu, unit: "% of a core",
                              workload: workload + "; utime+stime of all the host's threads", target: nil, met: nil))
            report.add(Figure(section: section, name: "scale \(panels) peak RSS (VmHWM)", value: mib, unit: "MiB",
                              workload: workload + "; the host alone", target: panels == 48 ? "≤ 40" : nil,
                              met: panels == 48 ? mib <= 40 : nil))
            report.add(Figure(section: section, name: "scale \(panels) RSS per extension process", value: extensionMiB, unit: "MiB",
                              workload: workload + "; VmRSS of each of the \(measured.extensionKiB.count) extension processes the host holds, averaged (\(measured.extensionKiB.map { "\($0 / 1024)" }.joined(separator: ", ")) MiB)",
                              target: nil, met: nil))
        }
        frameTime(into: report, harness: harness, quick: quick)
    }

    /// Runs the dashboard of `text` (the pinned address and `@RUNS@` replaced) at 300x100 for
    /// `window` seconds once its panels have settled; nil (and a note) when it does not start.
    private static func run(_ text: String, name: String, window: Int, harness: Harness, runsFile: String,
                            report: Report, extensions: Bool = false) -> Run? {
        let path = harness.scratch + "/" + name
        let replaced = text.replacing(Harness.pinnedAddress, with: "127.0.0.1:\(harness.port)").replacing("@RUNS@", with: runsFile)
        _ = FileManager.default.createFile(atPath: path, contents: Data(replaced.utf8))
        let arguments = ["--config", path] + (extensions ? ["--extensions-dir", harness.benchmarks + "/extensions"] : [])
        guard let pty = harness.started(nil, for: "\(section) (\(name))", report: report, columns: size.columns, rows: size.rows,
                                        extraArguments: arguments)
        else { return nil }
        defer { pty.stop() }
        _ = pty.readUntilQuiet(quietMs: 1_500, maxMs: 8_000)  // first fetches, first runs, extensions started
        let runsBefore = lines(runsFile)
        let requestsBefore = harness.requestCount()
        let first = pty.wakeups()
        let start = monotonicNanos()
        while seconds(since: start) < Double(window) { pty.read(timeoutMs: 100) }
        let last = pty.wakeups()
        let elapsed = seconds(since: start)
        let fetches = harness.requests.withLock { Array($0[requestsBefore...]) }.filter { $0 >= start }.count
        return Run(seconds: elapsed, wakeups: last.voluntary - first.voluntary, cpuTicks: last.cpuTicks - first.cpuTicks,
                   fetches: fetches, commandRuns: lines(runsFile) - runsBefore, peakKiB: pty.statusField("VmHWM") ?? 0,
                   extensionKiB: extensionProcesses(of: pty.pid))
    }

    /// VmRSS (KiB) of the host's children that run a bench extension (`counter.py`, `counter.sh`).
    private static func extensionProcesses(of host: pid_t) -> [Int] {
        ProcFiles.list("/proc").compactMap { pid -> Int? in
            guard Int32(pid) != nil, let status = ProcFiles.read("/proc/\(pid)/status"),
                  ProcFiles.field(status, "PPid") == Int(host),
                  let command = ProcFiles.read("/proc/\(pid)/cmdline"),
                  command.contains("counter.py") || command.contains("counter.sh") else { return nil }
            return ProcFiles.field(status, "VmRSS")
        }
    }

    private static func lines(_ path: String) -> Int {
        (ProcFiles.read(path) ?? "").reduce(0) { $0 + ($1 == "\n" ? 1 : 0) }
    }

    /// One frame of the 48-panel dashboard at 300x100 (its shown page; the extensions' panels
    /// as texts, headless), drawn by the dashboard's own `render()` and diffed, the clock one
    /// second on: what one second of change costs to draw. Only the shown page is drawn.
    @MainActor
    private static func frameTime(into report: Report, harness: Harness, quick: Bool) {
        let text = (ProcFiles.read(harness.benchmarks + "/scale-48.json") ?? "")
            .replacing(#/"kind": "scale-[a-z]+-[0-9]/counter"/#, with: #""kind": "text", "options": { "text": "extension" }"#)
            .replacing(Harness.pinnedAddress, with: "127.0.0.1:\(harness.port)")
            .replacing("@RUNS@", with: "/dev/null")
        let path = harness.scratch + "/scale-48-headless.json"
        _ = FileManager.default.createFile(atPath: path, contents: Data(text.utf8))
        let opened = HeadlessDashboard.open(catalog: .builtin(), configPath: path,
                                            size: TerminalSize(columns: size.columns, rows: size.rows), now: Date())
        guard case .success(let dashboard) = opened else {
            if case .failure(let output) = opened { report.notes.append("\(section) frame: \(output.standardError)") }
            return
        }
        defer { dashboard.close() }
        var previous = dashboard.render()
        var times: [Double] = [], cells = 0
        for _ in 0..<(quick ? 50 : 500) {
            dashboard.advance(by: 1)
            let t0 = monotonicNanos()
            let frame = dashboard.render()
            let changes = frame.changes(since: previous)
            times.append(Double(monotonicNanos() - t0) / 1e6)
            cells += changes.reduce(0) { $0 + $1.cells.count }
            previous = frame
        }
        report.add(Figure(section: section, name: "scale 48 frame, 300x100 (median)", value: quantile(times, 0.5), unit: "ms",
                          workload: "Benchmarks/scale-48.json headless (extension panels as texts), Dashboard.render() + CellBuffer.changes(since:) of the shown page of 12 after the clock moved 1 s (its 3 seconds clocks changed; avg \(cells / max(times.count, 1)) cells); p99 \(Report.format(quantile(times, 0.99))) ms",
                          target: nil, met: nil))
    }
}
