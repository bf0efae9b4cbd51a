#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import CLinux
import Dispatch
import Extensions
import FoundationEssentials
import LeaderboardServer
import TerminalUI
import WidgetCore
import Widgets

/// Everything the running dashboard is made of, built before the loop starts.
@MainActor
struct DashboardParts {
    var loop: MainLoop
    var clock: LoopClock
    var program: DashboardProgram
    var effects: TerminalEffects
    var reloader: ConfigReloader
    var log: HostLog?
}

/// Start-up of the dashboard in the terminal, in the order that matters: everything that can
/// fail with a message (config, theme, state directory, bundled server, the loop, the
/// terminal) does so before curses takes the screen, and signals are blocked before any
/// thread starts.
@MainActor
enum DashboardStartup {
    /// Provider threads: a provider that blocks keeps one; the others still answer.
    static let providerThreads = 4

    /// Builds the parts, or the exit code and message that explain why not (2: bad config or
    /// theme, 1: anything else).
    static func start(options: DashboardOptions, io: HostIO, catalog: Catalog, center: WidgetCenter,
                      extensions: ExtensionRuntime, extensionProblems: [String], skippedExtensions: [String] = [],
                      extensionNotes: [String] = []) -> Result<DashboardParts, CommandOutput> {
        let environment = io.environment
        var setup: DashboardSetup
        switch DashboardSetup.load(configPath: options.configPath, theme: options.theme, environment: environment,
                                   catalog: catalog) {
        case .success(let loaded): setup = loaded
        case .failure(let output): return .failure(output)
        }
        let stateDirectory: String
        do throws(ConfigLoadError) {
            stateDirectory = try ConfigLocator.stateDirectory(explicitPath: options.stateDirectory ?? io.files.state,
                                                              environment: environment)
        } catch {
            return .failure(CommandOutput(exitCode: 2, standardError: "widgethost: \(error)\n"))
        }
        do throws(FileSystemError) {
            try FilePaths.makeDirectories(stateDirectory)
        } catch {
            return .failure(CommandOutput(exitCode: 1, standardError: "widgethost: cannot use the state directory: \(error)\n"))
        }
        var recorder: MessageRecorder?
        if let path = options.recordMessages {
            guard let opened = MessageRecorder(path: path, coding: MessageLogCoding(catalog: catalog)) else { return .failure(MessageRecorder.failure(path)) }
            recorder = opened
        }
        // Signals are read from a signalfd on the loop: block them before any thread starts,
        // so every thread inherits the mask and none of them takes a signal instead.
        SignalTranslator.blockInThisThread()
        signal(SIGPIPE, SIG_IGN)
        // One malloc arena for every thread: glibc gives each thread that allocates an arena
        // of its own (heap pages per thread); ours allocate little and seldom at once.
        wh_limit_malloc_arenas(1)
        let log = HostLog(path: stateDirectory + "/widgethost.log", debug: options.debug)
        log?.info("starting widgethost \(WidgetHostCommand.version); config: \(setup.configPath ?? "default dashboard")")
        // The bundled server's access log only with --debug: a line per fetch (the host's own
        // requests) was a write per fetch for nobody.
        var serverLog: (@Sendable (String) -> Void)?
        if let log, options.debug { serverLog = { line in log.debug("leaderboard-server: \(line)") } }
        let bundledServer: LeaderboardService?
        switch setup.startBundledServer(log: serverLog, catalog: catalog) {
        case .success(let service):
            bundledServer = service
            if let url = service?.url { log?.info("bundled leaderboard server at \(url)") }
        case .failure(let output): return .failure(output)
        }
        let loop: MainLoop
        let clock: LoopClock
        let terminal: CursesBackend
        // What other threads post for the loop (`DashboardProgram.mailbox`) rings an eventfd
        // the loop sleeps on; the program is made below.
        let door = MailDoor()
        let wakeLoop: @Sendable () -> Void
        do {
            loop = try MainLoop()
            clock = try LoopClock(loop: loop, wallClock: io.clock)
            wakeLoop = try loop.doorbell { door.program?.takeMail() }
            terminal = try CursesBackend(theme: setup.theme, environment: environment.variables, renderingMode: options.renderingMode)
        } catch {
            bundledServer?.stop()
            return .failure(CommandOutput(exitCode: 1, standardError: "widgethost: \(error)\n"))
        }
        // ncurses installs handlers of its own; the loop reads these signals instead. Fatal
        // signals the loop does not read (SIGQUIT, SIGSEGV, a trap's SIGILL…) are the
        // backend's: it gives the terminal back, then the process dies of them.
        SignalTranslator.resetDispositions()
        terminal.setMouse(setup.config.mouse)

        let sessions = DashboardSessions.open(io: io, stateDirectory: stateDirectory, clock: clock, extensions: extensions, log: log)
        for problem in extensionProblems { log?.error("extension skipped: \(problem)") }
        for note in extensionNotes { log?.info("extension note: \(note)") }
        extensions.setCenter(center)
        let context = sessions.widgetContext(stateDirectory: stateDirectory, center: center, now: { clock.now })
        let widgets = catalog.bind(context)

        let themes = Theme.cycle(current: setup.theme)
        var dashboard = Dashboard(size: terminal.size, glyphs: terminal.glyphs, themes: themes.list,
                                  environment: environment.variables, configuration: SchedulerConfiguration(setup.config),
                                  clock: clock)
        dashboard.selectTheme(at: themes.index)
        dashboard.isPrivate = options.isPrivate
        dashboard.renderingMode = terminal.renderingMode
        dashboard.sessionsNotice = sessions.notice
        dashboard.extensionsNotice = ExtensionSetup.notice(problems: extensionProblems.count, skipped: skippedExtensions)
        dashboard.notice = dashboard.standingNotice
        dashboard.panelFactory = PanelFactory(widgets: widgets)
        dashboard.setPages(setup.config.pages, rotateSeconds: setup.config.rotateSeconds)
        dashboard.armRotation()
        dashboard.notify = setup.config.notify
        let reloader = ConfigReloader(path: setup.configPath, catalog: catalog, widgets: widgets, themeOverride: options.theme,
                                      environment: environment, log: log)
        reloader.rediscovery = ExtensionRediscovery(explicitDirectory: options.extensionsDirectory, environment: environment,
                                                    runtime: extensions, context: context, loggedProblems: extensionProblems)
        reloader.onApplied = { [weak reloader] config in
            guard let reloader else { return }
            sessions.configApplied(config, widgets: reloader.widgets, log: log)
        }
        let effects = TerminalEffects(terminal: terminal, io: io, log: log, sessions: sessions, reloader: reloader,
                                      bundledServer: bundledServer)
        let program = DashboardProgram(
            dashboard: dashboard, clock: clock, center: center,
            providerExecutor: ThreadTaskExecutor(maximumThreads: providerThreads, name: "wh-provider"),
            host: effects, wakeLoop: wakeLoop
        )
        door.program = program
        loop.onTurnEnd = { [weak effects, weak program] in
            if let effects, let program { effects.presentIfAsked(program) }
        }
        clock.onClockChange = { [weak program] step in program?.send(.clockSet(step: step)) }
        effects.control = openControl(stateDirectory: stateDirectory, sessions: sessions, loop: loop, center: center,
                                      program: program, environment: environment.variables, log: log)
        // The config's panels: their factories run here, as a config reload's run in its
        // `.buildPanels` effect, and `update` installs them.
        program.send(.panelsBuilt(DashboardBuilder.prepare(setup.config, widgets: widgets, reusing: [])))
        if let recorder {
            recorder.begin(MessageLogHeader(start: clock.now, size: terminal.size, config: .recorded(setup.configPath),
                                            theme: options.theme, variables: environment.variables))
            program.onMessage = { [clock] message in recorder.record(message, at: clock.now) }
        }
        if sessions.holdsStateDirectory {
            // The Live Activities and history of the last run (a kill -9 included).
            let journal = ActivityJournal(stateDirectory: stateDirectory)
            effects.journal = journal
            program.send(.activitiesRestored(journal.activities(), events: journal.events(limit: Dashboard.recentEventCount)))
        }
        sessions.start(widgets: widgets, log: log)
        return .success(DashboardParts(loop: loop, clock: clock, program: program, effects: effects, reloader: reloader, log: log))
    }
}

extension DashboardStartup {
    /// The control socket (`widgethost reload`), when this dashboard owns the state
    /// directory; without `XDG_RUNTIME_DIR`, or with another dashboard on it, the dashboard
    /// runs without one and the log says why.
    static func openControl(stateDirectory: String, sessions: DashboardSessions, loop: MainLoop, center: WidgetCenter,
                            program: DashboardProgram, environment: [String: String], log: HostLog?) -> ControlServer? {
        guard sessions.holdsStateDirectory else {
            log?.info("no control socket: another dashboard owns the state directory")
            return nil
        }
        switch ControlPath.socket(stateDirectory: stateDirectory, environment: environment, create: true)
            .flatMap({ ControlServer.open(path: $0, loop: loop) { [weak program] in ControlRequests.answer($0, center: center, program: program) } }) {
        case .success(let server):
            log?.info("control socket at \(server.path)")
            return server
        case .failure(let problem):
            log?.error("no control socket: \(problem)")
            return nil
        }
    }
}

/// Lets the loop's doorbell find the program, which is made after it.
@MainActor
private final class MailDoor {
    weak var program: DashboardProgram?
}
