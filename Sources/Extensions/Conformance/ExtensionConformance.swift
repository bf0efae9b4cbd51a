import ExtensionProtocol
import FoundationEssentials
import JSONTree
import Synchronization
import TerminalUI
import WidgetCore

/// `widgethost extension test`'s run: drives one extension through the host's own
/// `ExtensionHost` (the process code the dashboard uses, no second client) and checks each
/// answer against docs/extensions.md — `initialize`, `timeline` at every family and a few
/// sizes, `snapshot`, the placeholder, each action, each `dynamic` option's `options`, a
/// method it does not know, and the idle exit. Each check is a `ConformanceCheck` naming the rule a failure broke.
///
/// Takes real time: each request up to the extension's `requestSeconds`, the idle exit about
/// a second (the check relaunches it with `idleExitSeconds` 1) plus the host's 2 s grace.
public struct ExtensionConformance: Sendable {
    /// One kind to check: its options (defaults filled) and the content sizes to ask for.
    public struct Kind: Sendable {
        public var widget: ExtensionWidgetManifest
        public var options: WidgetOptions
        public var sizes: [(family: WidgetFamily, size: CellSize)]

        public init(widget: ExtensionWidgetManifest, options: WidgetOptions, sizes: [(family: WidgetFamily, size: CellSize)]) {
            self.widget = widget
            self.options = options
            self.sizes = sizes
        }
    }

    /// The method sent to check that unknown ones get -32601 (letters only, so that even a
    /// line-oriented extension reads it as a method name).
    public static let unknownMethod = "conformanceProbe"

    let host: ExtensionHost
    let kinds: [Kind]
    let log: ConformanceLog

    /// - Parameter host: bound already (a spawner, a state directory; sessions if it downloads).
    public init(host: ExtensionHost, kinds: [Kind]) {
        self.host = host
        self.kinds = kinds
        log = ConformanceLog(host: host)
    }

    /// Runs every check in order; a launch that fails ends the run after its check.
    public func run() async -> [ConformanceCheck] {
        var checks: [ConformanceCheck] = []
        guard let first = kinds.first, let firstSize = first.sizes.first else { return checks }
        // The first request launches it: `initialize` goes out first.
        let opening = await timelineCheck(first, family: firstSize.family, size: firstSize.size)
        let initialized = await initializeCheck(after: opening)
        checks.append(initialized)
        if !initialized.passed, case .launchFailed? = opening.error { return checks }
        checks.append(opening.check)
        for kind in kinds {
            for (index, target) in kind.sizes.enumerated() where kind.widget.kind != first.widget.kind || index > 0 {
                checks.append(await timelineCheck(kind, family: target.family, size: target.size).check)
            }
            checks.append(await snapshotCheck(kind))
            checks += placeholderChecks(kind)
            for action in kind.widget.manifest.actions where action.key != WidgetAction.reloadKey {
                checks.append(await actionCheck(kind, key: action.key))
            }
            for option in kind.widget.manifest.options where option.dynamic {
                checks.append(await optionsCheck(kind, option: option.name))
            }
        }
        checks.append(await unknownMethodCheck())
        checks.append(await idleExitCheck(first))
        return checks
    }

    // MARK: The checks

    /// Whether the first process answered `initialize` with `{"protocol": 1}` (waited for up
    /// to `requestSeconds` after the first timeline's answer, `opening`).
    func initializeCheck(after opening: Outcome) async -> ConformanceCheck {
        let name = "initialize"
        if case .launchFailed(let reason)? = opening.error {
            return ConformanceCheck(name: name, passed: false, detail: "cannot start it: \(reason)", rule: ConformanceRule.launch)
        }
        let seconds = host.manifest.limits.requestSeconds
        _ = await waitUntil(seconds: Double(seconds)) { host.state.withLock { $0.initializeAnswers > 0 || $0.connection == nil } }
        if host.state.withLock({ $0.initializeAnswers > 0 }) {
            return ConformanceCheck(name: name, passed: true, detail: "answered {\"protocol\": 1}", rule: ConformanceRule.initialize)
        }
        guard let reason = host.status.lastFailure else {
            return ConformanceCheck(name: name, passed: false, detail: "no answer within \(seconds) s", rule: ConformanceRule.initialize)
        }
        if reason.contains("initialize") {
            return ConformanceCheck(name: name, passed: false, detail: reason, rule: ConformanceRule.initialize)
        }
        return ConformanceCheck(name: name, passed: false, detail: "it stopped before answering: \(reason)" + stderrTail(),
                                rule: ConformanceRule.crash)
    }

    /// `; its last stderr lines: | …` (up to 3), or "".
    func stderrTail() -> String {
        let lines = log.all.filter { $0.hasPrefix("\(host.name) stderr: ") }.suffix(3)
            .map { " | " + $0.dropFirst(host.name.count + " stderr: ".count) }.joined()
        return lines.isEmpty ? "" : "; its last stderr lines:" + lines
    }

    struct Outcome {
        var check: ConformanceCheck
        var error: ExtensionError?
    }

    func timelineCheck(_ kind: Kind, family: WidgetFamily, size: CellSize, userInitiated: Bool = false,
                       label: String? = nil) async -> Outcome {
        let name = label ?? "timeline \(kind.widget.kind) \(family) \(size.columns)x\(size.rows)"
        let context = TimelineProviderContext(family: family, size: size, isUserInitiated: userInitiated)
        let before = host.status
        do {
            let result = try await host.request(HostMethod.timeline.rawValue, params: parameters(kind, context), userInitiated: true)
            let timeline = try ExtensionTimelineDecoder.decode(result)
            let policy = Self.describe(timeline.policy)
            let detail = "\(timeline.entries.count) \(timeline.entries.count == 1 ? "entry" : "entries"), policy \(policy)"
            if let past = pastPolicy(timeline) {
                return Outcome(check: ConformanceCheck(name: name, passed: false, detail: detail + ": " + past, rule: ConformanceRule.pastPolicy))
            }
            return Outcome(check: ConformanceCheck(name: name, passed: true, detail: detail, rule: ConformanceRule.timeline))
        } catch {
            return Outcome(check: failed(name, error, rule: ConformanceRule.timeline, since: before), error: error)
        }
    }

    func snapshotCheck(_ kind: Kind) async -> ConformanceCheck {
        let name = "snapshot \(kind.widget.kind)"
        let family = kind.sizes.first?.family ?? .small
        let context = TimelineProviderContext(family: family, size: kind.sizes.first?.size ?? CellSize(columns: 22, rows: 7),
                                              isPreview: true)
        let before = host.status
        do {
            let result = try await host.request(HostMethod.snapshot.rawValue, params: parameters(kind, context), userInitiated: true)
            _ = try ExtensionTimelineDecoder.decodeSnapshot(result)
            return ConformanceCheck(name: name, passed: true, detail: "one entry", rule: ConformanceRule.snapshot)
        } catch .remote(code: RPCMessage.methodNotFound, _) {
            return ConformanceCheck(name: name, passed: true, detail: "-32601 (not implemented): the host asks for a timeline instead",
                                    rule: ConformanceRule.snapshot)
        } catch {
            return failed(name, error, rule: ConformanceRule.snapshot, since: before)
        }
    }

    /// The placeholder (the manifest's, or the host's default) drawn at each family's first
    /// size: something must show.
    func placeholderChecks(_ kind: Kind) -> [ConformanceCheck] {
        var seen: [WidgetFamily] = []
        return kind.sizes.compactMap { target in
            guard !seen.contains(target.family) else { return nil }
            seen.append(target.family)
            let name = "placeholder \(kind.widget.kind) \(target.family) \(target.size.columns)x\(target.size.rows)"
            let view = kind.widget.placeholder ?? ExtensionWidgets.defaultPlaceholder
            var buffer = CellBuffer(width: target.size.columns, height: target.size.rows)
            view.draw(into: &buffer, in: buffer.bounds, glyphs: .unicode)
            let shown = TextBackend.lines(buffer).joined().filter { $0 != " " }.count
            return ConformanceCheck(name: name, passed: shown > 0,
                                    detail: shown > 0 ? "\(shown) cells drawn (redacted while loading)" : "draws nothing at this size",
                                    rule: ConformanceRule.placeholder)
        }
    }

    /// An `action` (answered `{}`), then the timeline the host asks for after it.
    func actionCheck(_ kind: Kind, key: String) async -> ConformanceCheck {
        let name = "action \(kind.widget.kind) '\(key)'"
        let params = RPCMessage.object([
            ("kind", .string(kind.widget.kind)),
            ("instance", .string(host.instanceName(kind: kind.widget.kind, options: kind.options))),
            ("action", .string(key)),
            ("options", RPCMessage.json(kind.options)),
        ])
        let before = host.status
        do {
            let result = try await host.request(HostMethod.action.rawValue, params: params, userInitiated: true)
            guard case .object = result else {
                return ConformanceCheck(name: name, passed: false, detail: "answered \(result.shortDescription), not {}",
                                        rule: ConformanceRule.action)
            }
        } catch .remote(let code, let message) where code != RPCMessage.methodNotFound {
            // An error answer is the action's failure, shown on the panel: allowed (a check
            // already running, say). -32601 says it has no `action` at all.
            return ConformanceCheck(name: name, passed: true,
                                    detail: "answered error \(code): \(RPCMessage.printable(message, limit: 120)) (the panel shows it as the action's failure)",
                                    rule: ConformanceRule.action)
        } catch {
            return failed(name, error, rule: ConformanceRule.action, since: before)
        }
        guard let target = kind.sizes.first else { return ConformanceCheck(name: name, passed: true, detail: "answered {}", rule: ConformanceRule.action) }
        var after = await timelineCheck(kind, family: target.family, size: target.size, userInitiated: true, label: name).check
        if after.passed { after.detail = "answered {}; the timeline after it: " + after.detail }
        return after
    }

    /// A method it does not know: an error answer -32601, and it keeps running.
    func unknownMethodCheck() async -> ConformanceCheck {
        let name = "unknown method '\(Self.unknownMethod)'"
        let rule = ConformanceRule.unknownMethod
        let before = host.status
        do {
            let result = try await host.request(Self.unknownMethod, params: RPCMessage.object([]), userInitiated: true)
            return ConformanceCheck(name: name, passed: false, detail: "answered a result (\(result.shortDescription)), not an error", rule: rule)
        } catch .remote(let code, let message) {
            guard code == RPCMessage.methodNotFound else {
                return ConformanceCheck(name: name, passed: false,
                                        detail: "answered error \(code) (\(RPCMessage.printable(message, limit: 80))), not -32601", rule: rule)
            }
            let after = host.status
            guard after.launches == before.launches || before.launches == 0, after.crashesInARow == 0 else {
                return ConformanceCheck(name: name, passed: false, detail: "answered -32601, then stopped: \(after.lastFailure ?? "exited")",
                                        rule: ConformanceRule.crash)
            }
            return ConformanceCheck(name: name, passed: true, detail: "answered -32601 and kept running", rule: rule)
        } catch {
            return failed(name, error, rule: rule, since: before)
        }
    }

    // MARK: Helpers

    /// A failed request's check: the extension's stop names the rule it broke (a protocol
    /// error, `initialize`, a crash, the time limit); a bad or error answer breaks `rule`.
    func failed(_ name: String, _ error: ExtensionError, rule: String, since before: ExtensionHost.Status) -> ConformanceCheck {
        let status = host.status
        switch error {
        case .badAnswer(let problems):
            return ConformanceCheck(name: name, passed: false, detail: problems, rule: rule)
        case .remote(let code, let message):
            return ConformanceCheck(name: name, passed: false, detail: "answered error \(code): \(RPCMessage.printable(message, limit: 200))",
                                    rule: rule)
        case .timedOut(let seconds):
            return ConformanceCheck(name: name, passed: false, detail: "no answer within \(seconds) s", rule: ConformanceRule.requestSeconds)
        case .launchFailed(let reason):
            return ConformanceCheck(name: name, passed: false, detail: "cannot start it: \(reason)", rule: ConformanceRule.launch)
        case .stopped(let reason), .failed(let reason), .restarting(let reason, _), .removed(let reason):
            let violated = reason.contains("initialize") ? ConformanceRule.initialize
                : status.protocolErrors > before.protocolErrors ? ConformanceRule.channel : ConformanceRule.crash
            return ConformanceCheck(name: name, passed: false, detail: "it stopped: \(reason)" + stderrTail(), rule: violated)
        case .cancelled:
            return ConformanceCheck(name: name, passed: false, detail: "cancelled", rule: rule)
        }
    }

    /// Why the policy asks again at once (a date already past), or nil.
    func pastPolicy(_ timeline: Timeline<ExtensionEntry>) -> String? {
        let now = Date()
        switch timeline.policy {
        case .after(let date) where date < now.addingTimeInterval(-1):
            return "the policy's date \(date.ISO8601Format()) is already past"
        case .atEnd:
            guard let last = timeline.entries.last?.date, last < now.addingTimeInterval(-1) else { return nil }
            return "\"atEnd\" with the last entry at \(last.ISO8601Format()), already past"
        default:
            return nil
        }
    }

    func parameters(_ kind: Kind, _ context: TimelineProviderContext) -> JSONValue {
        ExtensionProvider(host: host, widget: kind.widget, options: kind.options, now: { Date() }).parameters(context)
    }

    static func describe(_ policy: TimelineReloadPolicy) -> String {
        switch policy {
        case .atEnd: "atEnd"
        case .never: "never"
        case .after(let date): "after \(date.ISO8601Format())"
        }
    }

    /// Polls `condition` every 20 ms for up to `seconds`; whether it held.
    func waitUntil(seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = monotonicNow() + seconds
        while !condition() {
            if monotonicNow() >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }
}
