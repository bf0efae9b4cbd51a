import HostProcesses
import TerminalUI
import WidgetCore

/// Opens a link (`o` on a panel whose entry has a `url`): with `$BROWSER` — one program, a name
/// on `PATH` or a path, not a command line — else `xdg-open`; the URL is its one argument,
/// exactly as given (no shell sees it), in a process group of its own; its output goes
/// nowhere, its exit status to the log (never the URL: it may hold a token).
enum LinkOpener {
    /// Starts the opener; returns why it could not, for the status bar, or nil.
    static func open(_ url: String, environment: [String: String], processes: ProcessSpawner, log: HostLog?) -> String? {
        guard Hyperlink.isAllowed(url) else { return "not a link to open (http, https or mailto)" }
        let browser = environment["BROWSER"].flatMap { $0.isEmpty ? nil : $0 }
        let name = browser ?? "xdg-open"
        guard let program = ProgramPath.find(name, path: environment["PATH"]) else {
            return browser != nil ? "cannot open the link: $BROWSER (\(name.prefix(60))) is not a program"
                                  : "cannot open the link: no $BROWSER and no xdg-open"
        }
        do {
            let process = try processes.spawn([program, url], environment: environment, standardOutput: .null,
                                              standardError: .null) { exit in
                log?.info("link opener \(name) \(exit)")
            }
            log?.info("opening a link with \(name) (pid \(process.pid))")
            return nil
        } catch {
            return "cannot open the link: \(error)"
        }
    }
}
