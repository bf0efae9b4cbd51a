#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Extensions
import TerminalUI
import WidgetCore

/// Runs the dashboard in the real terminal: one serial loop on the main thread (`MainLoop`)
/// that turns what its descriptors report into `DashboardMessage`s for the program
/// (`DashboardProgram`, whose effects `TerminalEffects` runs).
///
/// The descriptors: stdin (keys), a signalfd (WINCH, TERM, INT, HUP, TSTP, CHLD; see
/// `SignalTranslator`), the one-shot timeline wake-up (`LoopClock`'s timerfd, which also tells
/// when the wall clock was set), inotify on the config's directory (`ConfigWatcher`), and the
/// main dispatch queue's, through which provider answers, session events and `WidgetCenter`
/// requests arrive. The loop sleeps in between: no polling, no frame rate, no Dispatch worker
/// thread. Start-up is `DashboardStartup`'s.
@MainActor
final class DashboardRunner {
    private let options: DashboardOptions
    private let io: HostIO
    private let catalog: Catalog
    private let center: WidgetCenter
    /// The extensions' processes (launched when a panel first needs one).
    private let extensions: ExtensionRuntime
    /// Extensions skipped for a bad manifest (their problems and names): logged, and said in
    /// the status bar until a config reload finds them fixed; and the notes (shadowed copies).
    private let extensionProblems: [String]
    private let skippedExtensions: [String]
    private let extensionNotes: [String]
    private var configWatch: ConfigWatcher?

    /// - Parameters:
    ///   - io: the system as the host sees it: environment, files, the wall clock the loop's
    ///     clock reads, child processes, the HTTP transport.
    ///   - center: where widgets (and extensions) ask for reloads; the process's is `WidgetCenter.shared`.
    init(options: DashboardOptions, io: HostIO, catalog: Catalog, center: WidgetCenter = WidgetCenter(),
         extensions: ExtensionRuntime = .empty, extensionProblems: [String] = [], skippedExtensions: [String] = [],
         extensionNotes: [String] = []) {
        self.options = options
        self.io = io
        self.catalog = catalog
        self.center = center
        self.extensions = extensions
        self.extensionProblems = extensionProblems
        self.skippedExtensions = skippedExtensions
        self.extensionNotes = extensionNotes
    }

    /// Sets everything up and runs until quit; returns only on a start-up error (exit code and
    /// message), otherwise exits the process itself.
    func run() -> CommandOutput {
        let parts: DashboardParts
        switch DashboardStartup.start(options: options, io: io, catalog: catalog, center: center, extensions: extensions,
                                      extensionProblems: extensionProblems, skippedExtensions: skippedExtensions,
                                      extensionNotes: extensionNotes) {
        case .success(let started): parts = started
        case .failure(let output): return output
        }
        installSources(parts)
        parts.effects.present(parts.program)
        withExtendedLifetime(parts) { parts.loop.run() }
    }

    private func installSources(_ parts: DashboardParts) {
        let program = parts.program
        let terminal = parts.effects.terminal
        parts.loop.watch(0) {
            for key in terminal.readKeys() {
                if key == .resize { program.send(.resized(terminal.size)) }
                program.send(.key(key))
            }
        }
        let signals = SignalTranslator.makeDescriptor()
        parts.loop.watch(signals) { [log = parts.log] in
            while case let number = wh_signalfd_read(signals), number > 0 {
                log?.debug("signal \(number)")
                guard let message = SignalTranslator.message(for: number, probe: {
                    (CursesBackend.windowSize(fd: 1), isatty(0) != 0)
                }) else { continue }
                switch message {
                case .resized(let size):
                    terminal.resize(to: size)
                    program.send(.resized(terminal.size))
                case .quit where number == SIGHUP:
                    log?.info("SIGHUP: the terminal is gone")
                    program.send(.quit)
                default:
                    program.send(message)
                }
            }
        }
        guard let configPath = parts.reloader.path else { return }
        configWatch = ConfigWatcher(path: configPath)
        if let watch = configWatch {
            parts.loop.watch(watch.fd) {
                guard watch.fileChanged() else { return }
                program.send(.configChanged(reason: "config file changed: reloading"))
            }
        } else {
            parts.log?.error("cannot watch \(configPath) for changes; SIGHUP still reloads it")
        }
    }
}
