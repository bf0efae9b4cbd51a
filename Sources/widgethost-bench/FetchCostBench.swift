import FoundationEssentials
#if canImport(Glibc)
import Glibc
#endif

/// Figure 8: what one fetch costs the real `widgethost` in its pseudo-terminal, and what its
/// memory is made of.
///
/// On Benchmarks/leaderboard-manual.json (a large leaderboard that fetches only when asked, a
/// clock with minutes), each try waits for a quiet terminal, then — for a 200 — plays one game
/// tick on the bench's server (the board changes) or — for a 304 — leaves the board alone,
/// sends `r` and reads until the terminal is quiet for 300 ms. Between the two readings:
///
/// - **wake-ups** by thread: voluntary + non-voluntary context switches from
///   /proc/PID/task/TID/status, grouped by the thread's name (/proc/PID/task/TID/comm:
///   `widgethost` is the main loop, `wh-transport` libcurl's thread, `wh-provider` the
///   providers' executor, `wh-watch` the text widget's file watcher). The key that starts the fetch is counted (a polled fetch wakes the
///   main loop from its timer instead).
/// - **disk**: /proc/PID/io `write_bytes` (pages the process dirtied, counted when first
///   dirtied) minus `cancelled_write_bytes` (dirty pages of files it deleted or truncated
///   before they reached the disk) — what the fetch sends to the disk — and `wchar` (bytes
///   passed to write(2) and friends, page cache or not).
/// - **fsyncs**: /proc counts none, so a separate run under `strace -f -e trace=fsync,…`
///   counts the lines it logs per try (strace slows the program down, so this run gives no
///   other figure); "n/a" without strace.
///
/// Memory: the default dashboard (no config: the bundled server in process, a leaderboard
/// every 10 s, a clock) for `duration` seconds: VmHWM, and /proc/PID/status
/// RssAnon/RssFile/RssShmem at the end, with /proc/PID/smaps' Rss summed by what is mapped.
enum FetchCostBench {
    static func measure(into report: Report, harness: Harness, quick: Bool) {
        let tries = quick ? 5 : 20
        let body = harness.server.game.boardJSON().count
        wakeupsAndDisk(into: report, harness: harness, tries: tries, body: body)
        fsyncs(into: report, harness: harness, tries: quick ? 3 : 10)
        memory(into: report, harness: harness, duration: quick ? 12 : 30)
    }

    // MARK: - Wake-ups and disk

    struct ThreadCount { var name: String; var voluntary: Int; var involuntary: Int }

    /// Context switches of every thread of `pid`, by thread id.
    static func threads(_ pid: pid_t) -> [String: ThreadCount] {
        var out: [String: ThreadCount] = [:]
        for task in ProcFiles.list("/proc/\(pid)/task") {
            guard let status = ProcFiles.read("/proc/\(pid)/task/\(task)/status") else { continue }
            let name = ProcFiles.read("/proc/\(pid)/task/\(task)/comm")?.split(separator: "\n").first.map(String.init) ?? "?"
            out[task] = ThreadCount(name: name, voluntary: ProcFiles.field(status, "voluntary_ctxt_switches") ?? 0,
                                    involuntary: ProcFiles.field(status, "nonvoluntary_ctxt_switches") ?? 0)
        }
        return out
    }

    struct IOCount { var writeBytes = 0; var cancelled = 0; var wchar = 0 }

    static func io(_ pid: pid_t) -> IOCount {
        guard let text = ProcFiles.read("/proc/\(pid)/io") else { return IOCount() }
        return IOCount(writeBytes: ProcFiles.field(text, "write_bytes") ?? 0,
                       cancelled: ProcFiles.field(text, "cancelled_write_bytes") ?? 0,
                       wchar: ProcFiles.field(text, "wchar") ?? 0)
    }

    /// Waits until the wall clock is at least 2 s away from a minute boundary (the status
    /// clock's minute entry would wake the process inside the window).
    static func awayFromMinuteBoundary() {
        while true {
            let s = IdleBench.wallSeconds().truncatingRemainder(dividingBy: 60)
            if s > 1.5 && s < 56 { return }
            sleepMilliseconds(250)
        }
    }

    struct Try { var byThread: [String: Int]; var total: Int; var voluntary: Int; var disk: Int; var wchar: Int }

    static func wakeupsAndDisk(into report: Report, harness: Harness, tries: Int, body: Int) {
        guard let pty = harness.started("leaderboard-manual.json", for: "8 wake-ups and disk per fetch", report: report) else { return }
        defer { pty.stop() }
        _ = pty.readUntilQuiet(quietMs: 500, maxMs: 5_000)  // the first fetch and its frame
        var results: [(label: String, tries: [Try])] = []
        for changed in [true, false] {
            var done: [Try] = []
            for _ in 0..<tries {
                awayFromMinuteBoundary()
                _ = pty.readUntilQuiet(quietMs: 200, maxMs: 2_000)
                if changed { harness.server.advance(ticks: 1) }
                let wallBefore = IdleBench.wallSeconds()
                let before = threads(pty.pid), ioBefore = io(pty.pid)
                pty.send("r")
                _ = pty.readUntilQuiet(quietMs: 300, maxMs: 3_000)
                let after = threads(pty.pid), ioAfter = io(pty.pid)
                // A minute boundary inside the window: the status clock woke too; not this fetch's.
                if (IdleBench.wallSeconds() / 60).rounded(.down) != (wallBefore / 60).rounded(.down) { continue }
                var byThread: [String: Int] = [:]
                var voluntary = 0
                for (tid, a) in after {
                    let b = before[tid] ?? ThreadCount(name: a.name, voluntary: 0, involuntary: 0)
                    byThread[a.name, default: 0] += (a.voluntary - b.voluntary) + (a.involuntary - b.involuntary)
                    voluntary += a.voluntary - b.voluntary
                }
                done.append(Try(byThread: byThread, total: byThread.values.reduce(0, +), voluntary: voluntary,
                                disk: (ioAfter.writeBytes - ioBefore.writeBytes) - (ioAfter.cancelled - ioBefore.cancelled),
                                wchar: ioAfter.wchar - ioBefore.wchar))
            }
            results.append((changed ? "200" : "304", done))
        }
        for (label, done) in results {
            let workload = "Benchmarks/leaderboard-manual.json, 100x30; \(label == "200" ? "one server tick (the board changes) then" : "board unchanged,") `r`, read until 300 ms quiet; median of \(done.count) tries"
            let total = quantile(done.map { Double($0.total) }, 0.5)
            let target = label == "200" ? 10.0 : 6.0
            report.add(Figure(section: "8", name: "wake-ups/fetch \(label) all threads", value: total, unit: "wake-ups",
                              workload: workload + "; voluntary + non-voluntary context switches summed over /proc/PID/task/*/status",
                              target: "≤ \(Int(target))", met: total <= target))
            report.add(Figure(section: "8", name: "wake-ups/fetch \(label) voluntary", value: quantile(done.map { Double($0.voluntary) }, 0.5),
                              unit: "wake-ups", workload: workload + "; voluntary only (the thread slept and was woken)",
                              target: nil, met: nil))
            let names = Set(done.flatMap { $0.byThread.keys }).sorted()
            for name in names {
                report.add(Figure(section: "8", name: "wake-ups/fetch \(label) \(name)",
                                  value: quantile(done.map { Double($0.byThread[name] ?? 0) }, 0.5), unit: "wake-ups",
                                  workload: workload + "; threads named \(name) (/proc/PID/task/TID/comm)", target: nil, met: nil))
            }
            let disk = quantile(done.map { Double($0.disk) }, 0.5)
            // A 304 brings nothing new: nothing written (issue 30; 4 KiB of WAL before).
            let limit = label == "200" ? Double(body + 8192) : 0
            report.add(Figure(section: "8", name: "disk/fetch \(label)", value: disk, unit: "bytes",
                              workload: workload + "; /proc/PID/io write_bytes − cancelled_write_bytes (body \(body) B)",
                              target: "≤ \(Int(limit))", met: disk <= limit))
            report.add(Figure(section: "8", name: "wchar/fetch \(label)", value: quantile(done.map { Double($0.wchar) }, 0.5),
                              unit: "bytes", workload: workload + "; /proc/PID/io wchar (bytes given to write calls, terminal included)",
                              target: nil, met: nil))
        }
    }

    // MARK: - fsyncs

    static let strace: String? = {
        let paths: [String] = ["/usr/bin/strace", "/bin/strace"]
        return paths.first { (path: String) -> Bool in access(path, X_OK) == 0 }
    }()

    static func fsyncs(into report: Report, harness: Harness, tries: Int) {
        let log = harness.scratch + "/fsync-trace.txt"
        func figure(_ label: String, _ value: Double, _ detail: String) {
            report.add(Figure(section: "8", name: "fsyncs/fetch \(label)", value: value, unit: "calls",
                              workload: "Benchmarks/leaderboard-manual.json under `strace -f -e trace=fsync,fdatasync,sync_file_range,msync`; \(detail)",
                              target: nil, met: nil))
        }
        guard let strace else {
            figure("200", .nan, "strace is not installed: n/a")
            figure("304", .nan, "strace is not installed: n/a")
            return
        }
        guard let pty = harness.started("leaderboard-manual.json", for: "8 fsyncs per fetch (under strace)", report: report,
                                        timeoutMs: 15_000,
                                        wrapper: [strace, "-f", "-qq", "-e", "trace=fsync,fdatasync,sync_file_range,msync", "-o", log])
        else { return }
        defer { pty.stop() }
        _ = pty.readUntilQuiet(quietMs: 1_000, maxMs: 10_000)
        func calls() -> Int {
            (ProcFiles.read(log) ?? "").split(separator: "\n").filter { !$0.contains("resumed>") && !$0.hasPrefix("+++") }.count
        }
        for changed in [true, false] {
            var counts: [Double] = []
            for _ in 0..<tries {
                _ = pty.readUntilQuiet(quietMs: 300, maxMs: 3_000)
                if changed { harness.server.advance(ticks: 1) }
                let before = calls()
                pty.send("r")
                _ = pty.readUntilQuiet(quietMs: 700, maxMs: 5_000)
                counts.append(Double(calls() - before))
            }
            figure(changed ? "200" : "304", quantile(counts, 0.5), "median of \(counts.count) tries (max \(Int(counts.max() ?? 0)))")
        }
    }

    // MARK: - Memory

    /// What a mapping's path belongs to, for the RSS breakdown.
    static func category(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        if path.isEmpty || path.hasPrefix("[") { return "anonymous" }
        if name.hasPrefix("libFoundation") || name.hasPrefix("lib_Foundation") { return "Foundation" }
        if name.hasPrefix("libswift") || name.hasPrefix("libdispatch") || name.hasPrefix("libBlocksRuntime") { return "Swift runtime" }
        if name.hasPrefix("libsqlite3") { return "SQLite" }
        if name.hasPrefix("libncurses") || name.hasPrefix("libtinfo") { return "ncurses" }
        if name.hasPrefix("libc.so") || name.hasPrefix("libm.so") || name.hasPrefix("ld-linux") || name.hasPrefix("libstdc++")
            || name.hasPrefix("libgcc_s") || name.hasPrefix("libutil") || name.hasPrefix("libpthread") || name.hasPrefix("libdl") {
            return "libc, libstdc++, ld.so"
        }
        if name == "widgethost" { return "widgethost binary" }
        if name.hasPrefix("locale-archive") || path.hasPrefix("/usr/lib/locale") || path.hasPrefix("/usr/share") { return "locale, zoneinfo, terminfo" }
        // Everything else a shared library: libcurl and what it pulls in (TLS, Kerberos, LDAP, …).
        if name.contains(".so") { return "libcurl and its libraries" }
        return "other files"
    }

    static func memory(into report: Report, harness: Harness, duration: Int) {
        guard let pty = harness.started(nil, for: "8 memory", report: report) else { return }
        defer { pty.stop() }
        let start = monotonicNanos()
        while seconds(since: start) < Double(duration) { pty.read(timeoutMs: 100) }
        let workload = "the default dashboard (no config: bundled server in process, leaderboard every 10 s, clock), 100x30, \(duration) s"
        guard let status = ProcFiles.read("/proc/\(pty.pid)/status") else { return }
        let hwm = Double(ProcFiles.field(status, "VmHWM") ?? 0) / 1024
        report.add(Figure(section: "8", name: "peak RSS default dashboard", value: hwm, unit: "MiB",
                          workload: workload + "; VmHWM", target: "≤ 20", met: hwm <= 20))
        for field in ["RssAnon", "RssFile", "RssShmem"] {
            report.add(Figure(section: "8", name: "RSS \(field)", value: Double(ProcFiles.field(status, field) ?? 0) / 1024,
                              unit: "MiB", workload: workload + "; /proc/PID/status \(field) at the end", target: nil, met: nil))
        }
        var byCategory: [String: Int] = [:]
        var current = ""
        for line in (ProcFiles.read("/proc/\(pty.pid)/smaps") ?? "").split(separator: "\n", omittingEmptySubsequences: true) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let first = fields.first, first.contains("-"), !first.hasSuffix(":") {
                // A mapping's header: address perms offset dev inode [path]
                current = category(fields.count > 5 ? fields[5...].joined(separator: " ") : "")
            } else if fields.first == "Rss:", fields.count > 1 {
                byCategory[current, default: 0] += Int(fields[1]) ?? 0
            }
        }
        for (name, kb) in byCategory.sorted(by: { $0.value > $1.value }) {
            report.add(Figure(section: "8", name: "RSS of \(name)", value: Double(kb) / 1024, unit: "MiB",
                              workload: workload + "; /proc/PID/smaps Rss summed over the mappings of \(name)", target: nil, met: nil))
        }
    }
}
