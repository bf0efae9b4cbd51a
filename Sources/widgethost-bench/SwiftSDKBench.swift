#if canImport(Glibc)
import Glibc
#endif

/// Figure 10, the Swift SDK's example (issue 29): `Examples/extensions/daylight` (built with
/// `swift build` in its folder; the bench says so when it is not) in one panel of the real
/// `widgethost`, 100x30 — exec of the host until the first entry ("today", which the redacted
/// placeholder does not show) is on the terminal, then the idle wake-ups of the host and of
/// the extension's process in a window without a minute boundary (target 0 for both: the SDK
/// waits in `read` and runs requests on a thread of its own, never Dispatch's pool).
enum SwiftSDKBench {
    static func measure(into report: Report, harness: Harness, quick: Bool) {
        let directory = ExtensionBench.absolute(harness.benchmarks + "/../Examples/extensions")
        guard access(directory + "/daylight/.build/debug/daylight", X_OK) == 0 else {
            report.notes.append("10 Swift SDK example: not measured — build it first: swift build --package-path Examples/extensions/daylight")
            return
        }
        var toEntry: [Double] = []
        for _ in 0..<(quick ? 3 : 10) {
            guard let pty = harness.launch("extension-swift.json", extraArguments: ["--extensions-dir", directory]) else { continue }
            if let entry = pty.readUntil("today", timeoutMs: 5_000) { toEntry.append(Double(entry - pty.started) / 1e6) }
            pty.stop()
        }
        let workload = "Benchmarks/extension-swift.json (Examples/extensions/daylight, debug build), 100x30"
        if !toEntry.isEmpty {
            report.add(Figure(section: "10", name: "extension (Swift SDK) exec → first entry", value: quantile(toEntry, 0.5),
                              unit: "ms", workload: workload + ", median of \(toEntry.count) starts; until \"today\" is read",
                              target: nil, met: nil))
        }
        guard let pty = harness.started("extension-swift.json", for: "10 Swift SDK example idle", report: report, mark: "today",
                                        extraArguments: ["--extensions-dir", directory]) else { return }
        defer { pty.stop() }
        _ = pty.readUntilQuiet(quietMs: 300, maxMs: 3_000)
        let window = quick ? 5 : 10
        let children = ExtensionBench.childProcesses(of: pty.pid)
        let (host, extensionWakeups) = ExtensionBench.idleWindow(pty, seconds: window, others: children)
        let idle = workload + ", the extension running, \(window) s without a minute boundary"
        report.add(Figure(section: "10", name: "idle wake-ups, Swift SDK extension running", value: Double(host), unit: "wake-ups",
                          workload: idle + "; host, all threads", target: "0", met: host == 0))
        report.add(Figure(section: "10", name: "idle wake-ups of the Swift SDK extension", value: Double(extensionWakeups),
                          unit: "wake-ups", workload: idle + "; the extension's process, all threads", target: "0",
                          met: extensionWakeups == 0 && !children.isEmpty))
    }
}
