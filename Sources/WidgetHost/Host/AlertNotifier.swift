import HostProcesses
import TerminalUI

/// Acts on a panel's new or risen alert as the config's `notify` says: the bell, a desktop
/// notification through the terminal (OSC 9, inside tmux's passthrough when `$TMUX` is set),
/// and the command — its program found on `PATH`, `{title}`, `{text}`, `{level}` and
/// `{panel}` replaced in its arguments, run without a shell in a process group of its own,
/// its output going nowhere and its exit status to the log. The cooldown is the dashboard's.
enum AlertNotifier {
    @MainActor
    static func notify(_ notice: AlertNotice, terminal: CursesBackend, io: HostIO, log: HostLog?) {
        let settings = notice.settings
        if settings.bell { terminal.bell() }
        if settings.desktop {
            terminal.notifyDesktop("\(notice.panel): \(notice.text)", inTmux: !(io.widgetEnvironment["TMUX"] ?? "").isEmpty)
        }
        guard let command = settings.command else { return }
        let arguments = arguments(command, notice)
        let environment = io.widgetEnvironment
        guard let program = ProgramPath.find(arguments[0], path: environment["PATH"]) else {
            log?.error("notify: \(Sanitizer.sanitize(String(arguments[0].prefix(80)))) is not a program")
            return
        }
        do {
            let process = try io.processes.spawn([program] + arguments.dropFirst(), environment: environment, standardOutput: .null,
                                                 standardError: .null) { exit in log?.info("notify command \(exit)") }
            log?.info("notify command started (pid \(process.pid))")
        } catch {
            log?.error("notify: cannot run the command: \(error)")
        }
    }

    /// The command's arguments with the notice's fields in place of `{title}`, `{text}`,
    /// `{level}` and `{panel}` (`{title}` is the panel's title too).
    static func arguments(_ command: [String], _ notice: AlertNotice) -> [String] {
        let fields = ["{title}": notice.panel, "{panel}": notice.panel, "{text}": notice.text, "{level}": notice.level.rawValue]
        return command.enumerated().map { index, word in
            guard index > 0 else { return word }
            // One pass: a field's value is never read for placeholders again.
            var out = ""
            var rest = Substring(word)
            while let open = rest.firstIndex(of: "{") {
                out += rest[..<open]
                rest = rest[open...]
                if let close = rest.firstIndex(of: "}"), let value = fields[String(rest[...close])] {
                    out += value
                    rest = rest[rest.index(after: close)...]
                } else {
                    out += "{"
                    rest = rest.dropFirst()
                }
            }
            return out + rest
        }
    }
}
