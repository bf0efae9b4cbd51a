import HostProcesses
import TerminalUI
import WidgetCore

/// The `command` widget: a command's output in a panel, run every `intervalSeconds`.
///
/// Options (DESIGN.md §4, `CommandOptions`): `command` (for `/bin/sh -c`) or `argv` (exactly
/// one), `intervalSeconds` (0: only when reloaded with `r`), `timeoutSeconds`, `maxOutputBytes`,
/// `workingDirectory`, `env` (added to the host's environment), `show` (`tail` or `head`). See `CommandRunner` for how a run is bounded.
public enum CommandWidget {
    public static let kind = "command"

    /// The widget, starting processes with the context's spawner in its environment (plus `env`).
    public static func configuration(context: WidgetContext) -> TerminalWidget {
        TerminalWidget(
            manifest: manifest,
            makeProvider: { options in
                let spec = try spec(options, hostEnvironment: context.environment)
                guard let spawner = context.processes else { throw OptionError("this host starts no processes") }
                return AnyTimelineProvider(CommandProvider(spec: spec, spawner: spawner, now: context.now))
            },
            view: PanelView.typed(view))
        .alerting { entry, options in
            guard let entry = entry as? CommandEntry, (try? CommandOptions(options))?.alertOnFailure == true else { return nil }
            return alert(entry.outcome)
        }
    }

    /// A critical alert for a run that failed (`alertOnFailure`): not exit 0, or not run.
    static func alert(_ outcome: CommandRun.Outcome?) -> EntryAlert? {
        switch outcome {
        case nil, .exited(0)?, .cancelled?: nil
        case .exited(let status)?: EntryAlert(level: .critical, text: "the command failed (exit \(status))")
        case .signalled(let signal)?: EntryAlert(level: .critical, text: "the command was killed (signal \(signal))")
        case .timedOut(let seconds)?: EntryAlert(level: .critical, text: "the command timed out after \(seconds) s")
        case .failedToStart(let reason)?: EntryAlert(level: .critical, text: "the command did not start: \(reason)")
        }
    }

    /// The run described by validated `options`.
    ///
    /// - Throws: `OptionError` naming the key path when neither or both of `command` and
    ///   `argv` are given, or `argv` is empty (the validator catches the first two in configs).
    static func spec(_ options: WidgetOptions, hostEnvironment: [String: String]) throws -> CommandSpec {
        let options = try CommandOptions(options)
        var environment = hostEnvironment
        for (name, value) in options.env ?? [:] { environment[name] = value }
        let arguments: [String]
        switch (options.command, options.argv) {
        case (let command?, nil):
            arguments = ["/bin/sh", "-c", command]
        case (nil, let argv?):
            guard let program = argv.first else { throw OptionError("options.argv: expected a program to run, got []") }
            // A program not found stays as given: the spawn fails and the panel says so.
            arguments = [CommandRunner.resolve(program, path: environment["PATH"]) ?? program] + argv.dropFirst()
        case (nil, nil):
            throw OptionError("options: missing option: give 'command' or 'argv'")
        case (_?, _?):
            throw OptionError("options.argv: give only one of 'command' or 'argv', not both")
        }
        let directory = options.workingDirectory
        return CommandSpec(arguments: arguments, environment: environment,
                           workingDirectory: directory?.isEmpty == false ? directory : nil,
                           intervalSeconds: max(0, options.intervalSeconds),
                           timeoutSeconds: min(maximumTimeoutSeconds, max(1, options.timeoutSeconds)),
                           maxOutputBytes: min(maximumOutputBytes, max(1, options.maxOutputBytes)),
                           showsTail: options.show == .tail)
    }

    static func view(_ entry: CommandEntry, context: WidgetViewContext) -> ViewNode {
        node(entry, context: context)
    }

    /// The output lines that fit above a status line ("exit 3 · ran 2m ago"): the last ones
    /// for `tail`, the first for `head`; each line is cut with `…`, never wrapped.
    static func node(_ entry: CommandEntry, context: WidgetViewContext) -> ViewNode {
        let rows = context.size.rows
        guard rows > 0 else { return .spacer }
        let status = entry.status
        let statusRole: StyleRole = context.isPlaceholder ? .placeholder : status.role
        var statusSpan = ViewNode.Span(status.text, role: statusRole)
        if !context.isPlaceholder, let ranAt = entry.ranAt, status.text.hasSuffix(" ago"), let ran = status.text.ranges(of: "ran ").last {
            // "ran 2m ago" at each frame's time (text that updates itself).
            statusSpan = ViewNode.Span(String(status.text[..<ran.upperBound]),
                                       pieces: [.date(DateText(ranAt, style: .relative, shownAt: entry.date))], role: statusRole)
        }
        let statusLine = ViewNode.text([statusSpan])
        guard rows > 1 else { return statusLine }
        let room = rows - 1
        let shown = entry.showsTail ? entry.lines.suffix(room) : entry.lines.prefix(room)
        var children: [ViewNode] = shown.map { spans in
            let styled = context.isPlaceholder ? spans.map { ViewNode.Span($0.text, role: .placeholder) } : spans
            return .text(styled.isEmpty ? [ViewNode.Span("")] : styled)
        }
        if entry.ranAt != nil, entry.lines.isEmpty { children.append(.text("(no output)", role: .muted)) }
        return .vstack(children + [.spacer, statusLine])
    }
}
