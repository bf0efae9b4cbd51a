import Extensions
import FoundationEssentials
import Synchronization
import TerminalUI
import WidgetCore
import Widgets

/// `widgethost extension run NAME/KIND`: discovers the extensions, launches NAME as the
/// dashboard would, asks it for one panel's timeline (`--snapshot`: its snapshot) and prints
/// it — the same code path as `preview` (`PreviewCommand.fetch` and `render`). Every failure
/// has its own exit status (see `ExitStatus`).
@MainActor
enum ExtensionRunCommand {
    enum ExitStatus {
        /// Bad usage, an unknown NAME or KIND, a refused manifest, bad options.
        static let usage: Int32 = 2
        /// It could not start, or it stopped (a crash, a protocol error, a limit).
        static let stopped: Int32 = 3
        static let timedOut: Int32 = 4
        /// Not a valid timeline or snapshot, or a JSON-RPC error answer.
        static let badAnswer: Int32 = 5
    }

    nonisolated static let prefix = "widgethost extension run: "
    /// The extension's stderr and error lines kept for a failure's report (without --debug).
    nonisolated static let keptLogLines = 20

    /// - Parameters:
    ///   - started: given the extensions' runtime before anything is launched (the command
    ///     stops them on Ctrl-C: `HeadlessSignals`).
    ///   - echo: where `--debug` writes each log line as it happens (stderr for the command;
    ///     tests collect them).
    static func run(_ options: ExtensionRunOptions, environment: HostEnvironment, catalog: Catalog, now: Date = Date(),
                    io: HostIO? = nil, started: (ExtensionRuntime) -> Void = { _ in },
                    echo: @escaping @Sendable (String) -> Void) async -> CommandOutput {
        let setup = ExtensionSetup.discover(catalog: catalog, explicitDirectory: options.extensionsDirectory,
                                            environment: environment, debug: options.debug)
        started(setup.runtime)
        defer { setup.runtime.stopAll() }
        let host: ExtensionHost
        switch find(options.kind, in: setup) {
        case .success(let found): host = found
        case .failure(let output): return output
        }
        let name = host.manifest.name
        let kept = Mutex<[String]>([])
        let debug = options.debug
        setup.runtime.setLog { level, message in
            if debug { return echo(message + "\n") }
            guard level == .error || message.hasPrefix("\(name) stderr: ") else { return }
            kept.withLock { lines in
                lines.append(message)
                if lines.count > keptLogLines { lines.removeFirst() }
            }
        }
        let request = PreviewCommand.Request(
            kind: options.kind, family: options.family, options: options.options,
            contentSize: options.size.map { CellSize(columns: $0.columns, rows: $0.rows) }, snapshot: options.snapshot,
            isPreview: options.snapshot, waitSeconds: Double(2 * host.manifest.limits.requestSeconds + 10), prefix: prefix,
            abandonWait: ({ host.unansweredEvents.map(EventsUnanswered.init) }, host.eventsUnansweredBell))
        let result = await PreviewCommand.fetch(request, environment: environment, catalog: setup.catalog, now: now, io: io)
        func failure(_ status: Int32, _ message: String) -> CommandOutput {
            let log = kept.withLock { $0 }.map { "  \($0)\n" }.joined()
            return CommandOutput(exitCode: status, standardError: "\(prefix)\(options.kind): \(message)\n"
                                 + (log.isEmpty ? "" : "the extension's last log lines:\n" + log))
        }
        switch result {
        case .success(let fetched):
            if options.snapshot, let error = (fetched.timeline.entries.first as? ExtensionEntry)?.failure {
                return failure(status(of: error), "\(error)")
            }
            return CommandOutput(exitCode: 0, standardOutput: PreviewCommand.render(fetched, count: options.count,
                                                                                     environment: environment, style: .extensionRun))
        case .failure(.refused(let lines)):
            return CommandOutput(exitCode: ExitStatus.usage, standardError: lines)
        case .failure(.timedOut(let seconds)):
            return failure(ExitStatus.timedOut, "no answer within \(Int(seconds)) s")
        case .failure(.provider(let error as EventsUnanswered)):
            return failure(status(of: error.error), "its answer to sessionEvents: \(error.error)")
        case .failure(.provider(let error)):
            guard let error = error as? ExtensionError else { return failure(1, "\(error)") }
            return failure(status(of: error), "\(error)")
        case .failure(.host(let message)):
            return failure(1, message)
        }
    }

    /// The extension did not answer `sessionEvents` (an error answer, a timeout, a crash).
    struct EventsUnanswered: Error {
        let error: ExtensionError
    }

    static func status(of error: ExtensionError) -> Int32 {
        switch error {
        case .launchFailed, .stopped, .restarting, .failed, .removed: ExitStatus.stopped
        case .timedOut: ExitStatus.timedOut
        case .remote, .badAnswer: ExitStatus.badAnswer
        case .cancelled: 1
        }
    }

    /// The host of NAME in `NAME/KIND`, or the explanation: not NAME/KIND, a refused manifest
    /// (its problems with file and key path), an unknown NAME or KIND (with a close name).
    static func find(_ qualified: String, in setup: ExtensionSetup) -> Result<ExtensionHost, CommandOutput> {
        func refuse(_ message: String) -> Result<ExtensionHost, CommandOutput> {
            .failure(CommandOutput(exitCode: ExitStatus.usage, standardError: prefix + message + "\n"))
        }
        let parts = qualified.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        let shown = String(qualified.prefix(64))
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            let builtin = setup.catalog.manifests.contains { $0.kind == qualified }
            return refuse("expects NAME/KIND of an extension, got '\(shown)'"
                          + (builtin ? "; '\(shown)' is a built-in kind: try 'widgethost preview \(shown)'" : ""))
        }
        let (name, kind) = (parts[0], parts[1])
        guard let host = setup.runtime.host(named: name) else {
            let refused = setup.problems.filter { $0.contains("/\(name)/extension.json:") }
            if !refused.isEmpty {
                return refuse("extension '\(name)' was refused:\n" + refused.map { "  \($0)" }.joined(separator: "\n"))
            }
            let names = setup.runtime.hosts.map(\.manifest.name)
            let hint = EditDistance.suggestion(for: name, among: names).map { "; did you mean '\($0)'?" } ?? ""
            let known = names.isEmpty ? " (none found; see --extensions-dir)" : " (found: \(names.joined(separator: ", ")))"
            return refuse("no extension named '\(String(name.prefix(64)))'\(hint.isEmpty ? known : hint)")
        }
        let kinds = host.manifest.widgets.map(\.kind)
        guard kinds.contains(kind) else {
            let hint = EditDistance.suggestion(for: kind, among: kinds).map { "; did you mean '\(name)/\($0)'?" }
            return refuse("extension '\(name)' has no kind '\(String(kind.prefix(64)))'"
                          + (hint ?? "; its kinds: \(kinds.map { "\(name)/\($0)" }.joined(separator: ", "))"))
        }
        return .success(host)
    }
}
