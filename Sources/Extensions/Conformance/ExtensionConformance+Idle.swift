import FoundationEssentials
import Synchronization
import WidgetCore

/// The host's log lines about one extension, kept while a conformance run watches (the idle
/// exit is seen there: `idle for 1 s; shutting down`, then `stopped` or `still running after
/// shutdown; SIGTERM`). Lines still go where they went before.
final class ConformanceLog: Sendable {
    private let lines = Mutex<[String]>([])

    init(host: ExtensionHost) {
        host.runtime.sink.withLock { current in
            let previous = current
            current = ExtensionLogSink { [self] level, message in
                append(message)
                previous.write(level, message)
            }
        }
    }

    private func append(_ message: String) {
        lines.withLock { if $0.count < 2000 { $0.append(message) } }
    }

    var all: [String] { lines.withLock { $0 } }
}

extension ExtensionConformance {
    /// Relaunched with `idleExitSeconds` 1 (the manifest is otherwise the same), asked for one
    /// timeline, then left idle: the host sends `shutdown` and closes stdin, and the process
    /// must end by itself within the host's 2 s, before SIGTERM.
    func idleExitCheck(_ kind: Kind) async -> ConformanceCheck {
        let name = "idle exit"
        let rule = ConformanceRule.shutdown
        let original = host.manifest
        var quick = original
        quick.limits.idleExitSeconds = 1
        host.update(manifest: quick)
        defer { host.update(manifest: original) }
        guard let target = kind.sizes.first else { return ConformanceCheck(name: name, passed: true, detail: "no size to ask for", rule: rule) }
        let started = log.all.count
        let opening = await timelineCheck(kind, family: target.family, size: target.size, label: name)
        guard opening.check.passed || opening.error == nil else { return opening.check }
        let prefix = "\(host.name): "
        var shutdownAt: Double?
        // What came after the `shutdown` (the process `update` stopped says `stopped` too).
        func afterShutdown() -> ArraySlice<String> {
            let lines = log.all.dropFirst(started)
            guard let index = lines.firstIndex(of: prefix + "idle for 1 s; shutting down") else { return [] }
            return lines[(index + 1)...]
        }
        func crash() -> String? {
            log.all.dropFirst(started).first { $0.hasPrefix(prefix) && $0.contains("relaunch in") }
        }
        let ended = await waitUntil(seconds: 1 + 2 * 2 + Double(quick.limits.requestSeconds)) {
            let after = afterShutdown()
            if shutdownAt == nil, log.all.dropFirst(started).contains(prefix + "idle for 1 s; shutting down") { shutdownAt = monotonicNow() }
            return after.contains { $0 == prefix + "stopped" || $0.hasPrefix(prefix + "still running after shutdown") }
                || (shutdownAt == nil && crash() != nil)
        }
        if afterShutdown().contains(where: { $0.hasPrefix(prefix + "still running after shutdown") }) {
            return ConformanceCheck(name: name, passed: false,
                                    detail: "still running 2 s after shutdown and EOF on its stdin (the host sent SIGTERM)", rule: rule)
        }
        guard ended, let shutdownAt else {
            let crashed = crash()
            return ConformanceCheck(name: name, passed: false,
                                    detail: crashed.map { "it stopped before its idle exit: \($0.dropFirst(prefix.count))" }
                                        ?? "the host never saw it idle (a request still pending?)",
                                    rule: crashed == nil ? rule : ConformanceRule.crash)
        }
        let milliseconds = Int((monotonicNow() - shutdownAt) * 1000)
        return ConformanceCheck(name: name, passed: true,
                                detail: "exited by itself after shutdown (within about \(max(milliseconds, 20)) ms)", rule: rule)
    }
}
