#if canImport(Glibc)
import Glibc
#endif
import HostProcesses
import LeaderboardServer
import TerminalUI
import Widgets

/// Runs the dashboard's effects in the real terminal: frames (coalesced to one per loop turn),
/// the theme, Ctrl-Z, programs in the foreground, config reloads, reaping children, quitting.
@MainActor
final class TerminalEffects: DashboardHost {
    let terminal: CursesBackend
    private let io: HostIO
    private let log: HostLog?
    private let sessions: DashboardSessions
    private let reloader: ConfigReloader
    private let bundledServer: LeaderboardService?
    /// The control socket, removed when the dashboard quits.
    var control: ControlServer?
    /// Where the activities and events are journaled; nil when another dashboard holds the
    /// state directory.
    var journal: ActivityJournal?
    private var framePending = false

    init(terminal: CursesBackend, io: HostIO, log: HostLog?, sessions: DashboardSessions, reloader: ConfigReloader,
         bundledServer: LeaderboardService?) {
        self.terminal = terminal
        self.io = io
        self.log = log
        self.sessions = sessions
        self.reloader = reloader
        self.bundledServer = bundledServer
    }

    func perform(_ effect: DashboardEffect, in program: DashboardProgram) {
        switch effect {
        case .present:
            framePending = true  // drawn at the loop turn's end (`presentIfAsked`)
        case .setTheme(let theme):
            terminal.setTheme(theme)
            framePending = true  // drawn at the loop turn's end (`presentIfAsked`)
        case .runInTerminal(let arguments, let member, let action):
            let failure = runInTerminal(arguments, program: program)
            program.send(.actionFinished(member, action: action, failure: failure))
        case .suspend:
            suspend(program)
        case .reapChildren:
            for (process, exit) in io.processes.reapExited() { log?.debug("child \(process.pid) \(exit)") }
            // An extension that ended may have left a `setsid` child, now the host's: it goes.
            for pid in OrphanReaper.collect() { log?.info("killed orphan \(pid) (left by a child that ended; the host is its reaper)") }
        case .reloadConfig(let reason):
            reloader.load(reason: reason).forEach(program.send)
        case .openURL(let url):
            let failure = LinkOpener.open(url, environment: io.widgetEnvironment, processes: io.processes, log: log)
            program.send(.linkOpened(failure: failure))
        case .configApplied(let config):
            terminal.setMouse(config.mouse)
            reloader.applied(config)
        case .openEditor:
            program.send(.editorOpened(reloader.openEditor()))
        case .saveConfig(let file, let document, let overwrite):
            program.send(.configSaved(reloader.save(document, to: file, overwrite: overwrite)))
        case .log(let line):
            log?.info(line)
        case .quit(let status):
            quit(status: status)
        case .saveActivities(let activities):
            if let failure = journal?.save(activities) { log?.error(failure) }
        case .recordEvents(let events):
            if let failure = journal?.append(events) { log?.error(failure) }
        case .notify(let notice):
            AlertNotifier.notify(notice, terminal: terminal, io: io, log: log)
        case .startProvider, .cancelProvider, .armTimelineWake, .publishWidgets, .runAction, .armRelevanceWake, .armPageRotation,
             .buildPanels, .previewGallery, .queryOptions, .armActivityWake, .armTextWake:
            break  // the program's own
        }
    }

    /// Draws the frame asked for during the loop's turn, if one was (`MainLoop.onTurnEnd`):
    /// however many changes one turn brings, one `render()` and one `doupdate` follow.
    func presentIfAsked(_ program: DashboardProgram) {
        guard framePending else { return }
        framePending = false
        present(program)
    }

    func present(_ program: DashboardProgram) {
        terminal.present(program.render())
    }

    /// Takes the terminal back after it was given away: its size may have changed meanwhile,
    /// and the screen is drawn again (`.resized` always asks for a frame).
    private func retake(_ program: DashboardProgram) {
        terminal.resume()
        if let size = CursesBackend.windowSize(fd: 1) { terminal.resize(to: size) }
        program.send(.resized(terminal.size))
    }

    /// Ctrl-Z: give the terminal back, stop, and take it again on `fg`.
    private func suspend(_ program: DashboardProgram) {
        log?.debug("suspending (SIGTSTP)")
        terminal.suspend()
        var stop = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTSTP)
        kill(getpid(), SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &stop, nil)  // the pending SIGTSTP stops the process here
        // Execution continues here after SIGCONT.
        pthread_sigmask(SIG_BLOCK, &stop, nil)
        retake(program)
    }

    /// An action's program (`$EDITOR`): the screen is given back as for Ctrl-Z, the program
    /// runs in the foreground, then the dashboard is drawn again. Returns why it failed, or nil.
    private func runInTerminal(_ arguments: [String], program: DashboardProgram) -> String? {
        log?.info("running \(arguments.first ?? "") in the terminal")
        terminal.suspend()
        defer { retake(program) }
        do {
            let exit = try ForegroundProcess.run(arguments, environment: io.widgetEnvironment)
            let program = arguments.first?.split(separator: "/").last.map(String.init) ?? arguments.first ?? ""
            return exit == .exited(0) ? nil : "\(program) \(exit)"
        } catch {
            return "\(error)"
        }
    }

    private func quit(status: Int32) -> Never {
        terminal.end()
        sessions.close()
        bundledServer?.stop()
        control?.close()
        OrphanReaper.killAll()  // after the extensions' stop: what they left goes too
        log?.info("exiting with status \(status)")
        exit(status)
    }
}
