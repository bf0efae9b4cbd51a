#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import CLinux
import Dispatch
import Extensions
import FoundationEssentials
import JSONTree
import HostProcesses
import LeaderboardServer
import TerminalUI
import WidgetCore
import Widgets

/// Runs the dashboard in the real terminal: one serial loop on the main thread (`MainLoop`).
///
/// Everything arrives as an event on that loop — keys (stdin), resizes and signals (a
/// signalfd for WINCH, TERM, INT, HUP, TSTP), the one-shot timeline wake-up (`LoopClock`'s
/// timerfd), provider answers, session events and `WidgetCenter` requests (through the main
/// queue), config-file changes (inotify), child exits (SIGCHLD: `HostIO.processes` reaps) — and
/// the loop sleeps in between: no polling, no frame rate, no Dispatch worker thread.
/// Providers run on a small pool of threads of ours (`ThreadTaskExecutor`, parked when idle). Frames are coalesced: however many changes one turn
/// brings, one `render()` and one `doupdate` follow.
@MainActor
final class DashboardRunner {
    private let options: DashboardOptions
    private let io: HostIO
    private let environment: HostEnvironment
    private var catalog: Catalog
    private var widgets: BoundWidgets
    private var terminal: CursesBackend!
    private var dashboard: Dashboard!
    private var log: HostLog?
    private var configPath: String?
    private var stateDirectory = ""
    private var loop: MainLoop!
    private var signals: Int32 = -1
    private var framePending = false
    private var configWatch: ConfigWatcher?
    private var sessions: BackgroundSessionManager?
    private let registry = LeaderboardSessionRegistry()
    private var push: PushCenter?
    /// Why background sessions are off, kept in the status bar for the whole run.
    private var sessionsNotice: String?
    private var bundledServer: LeaderboardService?
    /// The extensions' processes (launched when a panel first needs one).
    private let extensions: ExtensionRuntime
    /// Finds extensions again at a config reload (issue 15).
    private var extensionRediscovery: ExtensionRediscovery?
    /// Extensions skipped for a bad manifest: logged, and said once in the status bar.
    private let extensionProblems: [String]

    /// Provider threads: a provider that blocks keeps one; the others still answer.
    static let providerThreads = 4

    init(options: DashboardOptions, io: HostIO, catalog: Catalog, extensions: ExtensionRuntime = .empty,
         extensionProblems: [String] = []) {
        self.extensions = extensions
        self.extensionProblems = extensionProblems
        self.options = options
        self.io = io
        environment = io.environment
        self.catalog = catalog
        widgets = catalog.bind()
    }

    /// Sets everything up and runs until quit; returns only on a start-up error (exit code and
    /// message), otherwise exits the process itself.
    func run() -> CommandOutput {
        // Everything that can fail with a message does so before curses takes the screen.
        var setup: DashboardSetup
        switch DashboardSetup.load(configPath: options.configPath, theme: options.theme, environment: environment,
                                  catalog: catalog) {
        case .success(let loaded): setup = loaded
        case .failure(let output): return output
        }
        configPath = setup.configPath
        do throws(ConfigLoadError) {
            stateDirectory = try ConfigLocator.stateDirectory(explicitPath: options.stateDirectory ?? io.files.state,
                                                              environment: environment)
        } catch {
            return CommandOutput(exitCode: 2, standardError: "widgethost: \(error)\n")
        }
        do throws(FileSystemError) {
            try FilePaths.makeDirectories(stateDirectory)
        } catch {
            return CommandOutput(exitCode: 1, standardError: "widgethost: cannot use the state directory: \(error)\n")
        }
        // Signals are read from a signalfd on the loop: block them before any thread starts,
        // so every thread inherits the mask and none of them takes a signal instead.
        pthread_sigmask(SIG_BLOCK, &Self.handledSignals, nil)
        signal(SIGPIPE, SIG_IGN)
        // One malloc arena for every thread: glibc gives each thread that allocates an arena
        // of its own (heap pages per thread); ours allocate little and seldom at once.
        wh_limit_malloc_arenas(1)
        let log = HostLog(path: stateDirectory + "/widgethost.log", debug: options.debug)
        self.log = log
        log?.info("starting widgethost \(WidgetHostCommand.version); config: \(configPath ?? "default dashboard")")
        // The bundled server's access log only with --debug: a line per fetch (the host's own
        // requests) was a write per fetch for nobody.
        var serverLog: (@Sendable (String) -> Void)?
        if let log, options.debug { serverLog = { line in log.debug("leaderboard-server: \(line)") } }
        switch setup.startBundledServer(log: serverLog, catalog: catalog) {
        case .success(let service):
            bundledServer = service
            if let url = service?.url { log?.info("bundled leaderboard server at \(url)") }
        case .failure(let output): return output
        }

        let clock: LoopClock
        do {
            loop = try MainLoop()
            clock = try LoopClock(loop: loop, wallClock: io.clock)
        } catch {
            bundledServer?.stop()
            return CommandOutput(exitCode: 1, standardError: "widgethost: \(error)\n")
        }
        do {
            terminal = try CursesBackend(theme: setup.theme, environment: environment.variables)
        } catch {
            bundledServer?.stop()
            return CommandOutput(exitCode: 1, standardError: "widgethost: \(error)\n")
        }
        // ncurses installs handlers of its own; the loop reads these signals instead. Fatal
        // signals the loop does not read (SIGQUIT, SIGSEGV, a trap's SIGILL…) are the
        // backend's: it gives the terminal back, then the process dies of them.
        for number in Self.handledSignalNumbers { signal(number, SIG_DFL) }

        let driver = TimelineDriver(
            clock: clock,
            configuration: Self.schedulerConfiguration(setup.config),
            center: WidgetCenter.shared,
            providerExecutor: ThreadTaskExecutor(maximumThreads: Self.providerThreads,
                                                 onStart: { wh_set_thread_name("wh-provider") }),
            hop: { body in DispatchQueue.main.async { MainActor.assumeIsolated { body() } } }
        )
        var notice: String?
        var widgetIO = io.widgets
        do {
            let transport = try io.makeTransport()
            widgetIO.transport = transport
            // Event streams run on libcurl's loop: push needs the real transport.
            push = (transport as? CurlTransport).map { PushCenter(transport: $0) }
            let manager = try BackgroundSessionManager.open(stateDirectory: stateDirectory, transport: transport,
                                                            clock: clock, deliveryQueue: .main)
            if case .unavailable(let message) = manager.availability { notice = message }
            if let recovered = manager.recoveryNotice {  // a journal moved aside: the log says where
                log?.error(recovered)
                notice = "sessions journal was damaged: moved aside, a new one started (see widgethost.log)"
            }
            sessions = manager
        } catch {
            notice = "background sessions are off: \(error)"
        }
        if let notice { log?.error(notice) }
        sessionsNotice = notice
        for problem in extensionProblems { log?.error("extension skipped: \(problem)") }
        if notice == nil, !extensionProblems.isEmpty {
            notice = "\(extensionProblems.count) problem(s) in extension manifests; those extensions are skipped (see widgethost.log)"
        }
        extensions.setLog { [log] level, message in
            switch level {
            case .debug: log?.debug("extension \(message)")
            case .info: log?.info("extension \(message)")
            case .error: log?.error("extension \(message)")
            }
        }
        extensions.setCenter(driver.center)
        let services = WidgetServices(sessions: sessions, stateDirectory: stateDirectory, center: driver.center, now: { clock.now },
                                      push: push, io: widgetIO)
        widgets = catalog.bind(services: services, registry: registry)
        extensionRediscovery = ExtensionRediscovery(explicitDirectory: options.extensionsDirectory, environment: environment,
                                                    runtime: extensions, services: services)

        let themes = Self.themeCycle(current: setup.theme)
        dashboard = Dashboard(driver: driver, size: terminal.size, glyphs: terminal.glyphs, themes: themes.list,
                              environment: environment.variables)
        dashboard.onFrameNeeded = { [weak self] in self?.scheduleFrame() }
        dashboard.onQuit = { [weak self] in self?.quit(status: 0) }
        dashboard.onRunInTerminal = { [weak self] arguments in
            guard let self else { return "the dashboard is ending" }
            return self.runInTerminal(arguments)
        }
        dashboard.onThemeChange = { [weak self] theme in
            self?.terminal.setTheme(theme)
            self?.scheduleFrame()
        }
        dashboard.selectTheme(at: themes.index)
        dashboard.notice = notice
        clock.onClockChange = { [weak self] in
            // The scheduler never moves an entry backwards on its own: after the clock was set
            // back, ask every widget for a timeline from the new now.
            self?.log?.info("the system clock was set: reloading every widget")
            self?.dashboard.driver.reloadAllForEnvironment()
        }
        driver.batch {
            dashboard.setPanels(DashboardBuilder.panels(for: setup.config, widgets: widgets, driver: driver,
                                                        environment: widgetEnvironment(driver)))
        }
        if let manager = sessions, manager.availability == .available {
            // Events of transfers that finished while no host ran are delivered now, and
            // transfers cut short by a crash start again with the URL configured now.
            let widgets = self.widgets.widgets
            manager.eventRouter = BackgroundSessionManager.router(for: { widgets })
            resumeTasks()
        }
        installSources()
        present()
        loop.run()
    }

    // MARK: Frames

    private func scheduleFrame() {
        guard !framePending else { return }
        framePending = true
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                self.framePending = false
                self.present()
            }
        }
    }

    private func present() {
        terminal.present(dashboard.render())
    }

    // MARK: Events

    /// SIGCHLD too: children of `io.processes` are reaped on the loop (`waitpid(WNOHANG)`).
    static let handledSignalNumbers = [SIGWINCH, SIGTERM, SIGINT, SIGHUP, SIGTSTP, SIGCHLD]
    private static var handledSignals: sigset_t = {
        var set = sigset_t()
        sigemptyset(&set)
        for number in handledSignalNumbers { sigaddset(&set, number) }
        return set
    }()

    private func installSources() {
        loop.watch(0) { [weak self] in
            guard let self else { return }
            for key in self.terminal.readKeys() {
                if key == .resize { self.dashboard.resize(to: self.terminal.size) }
                self.dashboard.handle(key)
            }
        }
        signals = wh_signalfd(&Self.handledSignals)
        loop.watch(signals) { [weak self] in
            guard let self else { return }
            while case let number = wh_signalfd_read(self.signals), number > 0 { self.handle(signal: number) }
        }
        if let configPath {
            configWatch = ConfigWatcher(path: configPath)
            if let watch = configWatch {
                loop.watch(watch.fd) { [weak self] in
                    guard let self, watch.fileChanged() else { return }
                    self.log?.info("config file changed: reloading")
                    self.reloadConfig()
                }
            } else {
                log?.error("cannot watch \(configPath) for changes; SIGHUP still reloads it")
            }
        }
    }

    private func handle(signal number: Int32) {
        switch number {
        case SIGWINCH:
            if let size = CursesBackend.windowSize(fd: 1) {
                terminal.resize(to: size)
                dashboard.resize(to: terminal.size)
                scheduleFrame()
            }
        case SIGTERM, SIGINT:
            quit(status: 0)
        case SIGHUP:
            // The terminal went away (window closed, ssh dropped): nobody is watching, so end.
            // A SIGHUP sent by the user while the terminal is there reloads the config.
            if isatty(0) == 0 || CursesBackend.windowSize(fd: 1) == nil {
                log?.info("SIGHUP: the terminal is gone")
                quit(status: 0)
            }
            log?.info("SIGHUP: reloading the config")
            reloadConfig()
        case SIGTSTP:
            suspend()
        case SIGCHLD:
            for (process, exit) in io.processes.reapExited() { log?.debug("child \(process.pid) \(exit)") }
        default:
            break
        }
    }

    /// Ctrl-Z: give the terminal back, stop, and take it again on `fg`.
    private func suspend() {
        log?.debug("suspending (SIGTSTP)")
        terminal.suspend()
        var stop = sigset_t()
        sigemptyset(&stop)
        sigaddset(&stop, SIGTSTP)
        kill(getpid(), SIGTSTP)
        pthread_sigmask(SIG_UNBLOCK, &stop, nil)  // the pending SIGTSTP stops the process here
        // Execution continues here after SIGCONT.
        pthread_sigmask(SIG_BLOCK, &stop, nil)
        terminal.resume()
        if let size = CursesBackend.windowSize(fd: 1) { terminal.resize(to: size) }
        dashboard.resize(to: terminal.size)
        present()
    }

    /// An action's program (`$EDITOR`): the screen is given back as for Ctrl-Z, the program
    /// runs in the foreground, then the dashboard is drawn again. Returns why it failed, or nil.
    private func runInTerminal(_ arguments: [String]) -> String? {
        log?.info("running \(arguments.first ?? "") in the terminal")
        terminal.suspend()
        defer {
            terminal.resume()
            if let size = CursesBackend.windowSize(fd: 1) { terminal.resize(to: size) }
            dashboard.resize(to: terminal.size)
            present()
        }
        do {
            let exit = try ForegroundProcess.run(arguments, environment: io.widgetEnvironment)
            let program = arguments[0].split(separator: "/").last.map(String.init) ?? arguments[0]
            return exit == .exited(0) ? nil : "\(program) \(exit)"
        } catch {
            return "\(error)"
        }
    }

    private func reloadConfig() {
        guard let configPath else {
            dashboard.notice = sessionsNotice
            return
        }
        extensionRediscovery?.apply(catalog: &catalog, widgets: &widgets)
        do throws(ConfigLoadError) {
            let report = try ConfigLoader(validator: catalog.validator()).load(path: configPath)
            guard let config = report.config else {
                let first = report.errors.first.map { "\($0)" } ?? "invalid"
                let more = report.errors.count > 1 ? " (+\(report.errors.count - 1) more)" : ""
                dashboard.notice = "config not reloaded: \(first)\(more)"
                for error in report.errors { log?.error("\(configPath): \(error)") }
                return
            }
            // A theme that does not load refuses the whole config, as at start-up.
            let theme: Theme
            do {
                theme = try ThemeLoader(environment: environment.variables).load(options.theme ?? config.theme ?? "default")
            } catch {
                dashboard.notice = "config not reloaded: \(error)"
                log?.error("\(configPath): \(error)")
                return
            }
            let driver = dashboard.driver
            driver.updateConfiguration(Self.schedulerConfiguration(config))
            let themes = Self.themeCycle(current: theme)
            dashboard.setThemes(themes.list, selected: themes.index)
            terminal.setTheme(theme)
            driver.batch {
                dashboard.setPanels(DashboardBuilder.panels(for: config, widgets: widgets, driver: driver,
                                                            environment: widgetEnvironment(driver), reusing: dashboard.panels))
            }
            // A config reload gives failed extensions another chance.
            extensions.resetFailures()
            // Sessions no panel uses any more must not be resumed or routed.
            registry.retain(Self.leaderboardSessions(in: config))
            push?.retain(keys: Self.leaderboardPushKeys(in: config))
            resumeTasks()
            dashboard.notice = sessionsNotice
            log?.info("config reloaded: \(config.panels.count) panels")
        } catch {
            dashboard.notice = "config not reloaded: \(error)"
            log?.error("\(error)")
        }
    }

    /// The background sessions the config's leaderboard panels use.
    static func leaderboardSessions(in config: DashboardConfig) -> Set<String> {
        let members = config.panels.flatMap { $0.isStack ? $0.children : [$0] }
        return Set(members.filter { $0.kind == LeaderboardWidget.kind }.compactMap { member in
            if case .string(let session)? = member.options["session"] { return session }
            return LeaderboardWidget.defaultSession
        })
    }

    /// The `PushCenter` keys of the config's leaderboard panels with a `push` option.
    static func leaderboardPushKeys(in config: DashboardConfig) -> Set<String> {
        let members = config.panels.flatMap { $0.isStack ? $0.children : [$0] }
        return Set(members.filter { $0.kind == LeaderboardWidget.kind }.compactMap { member -> String? in
            guard case .string(let push)? = member.options["push"], let pushURL = URL(string: push),
                  case .string(let url)? = member.options["url"], let boardURL = URL(string: url) else { return nil }
            var session = LeaderboardWidget.defaultSession
            if case .string(let named)? = member.options["session"] { session = named }
            return LeaderboardWidget.pushKey(push: pushURL, url: boardURL, session: session)
        })
    }

    /// Starts again the downloads a crashed host left, for the sessions configured now, with the
    /// URL configured now (and routes events waiting for a widget). Tasks of sessions no panel
    /// uses stay suspended until a config names them again.
    private func resumeTasks() {
        guard let manager = sessions, manager.availability == .available else { return }
        // Each widget names the URL its sessions resume with (the URL configured now); an
        // extension's downloads resume with the URL it asked for, while it is installed.
        let widgetURL = BackgroundSessionManager.resumeURL(for: widgets.widgets)
        let extensionURLs = Dictionary(manager.suspendedTasks.compactMap { task -> (String, URL)? in
            guard extensions.hosts.contains(where: { $0.ownsSession(task.sessionIdentifier) }) else { return nil }
            return ("\(task.sessionIdentifier)\n\(task.taskDescription ?? "")", task.url)
        }, uniquingKeysWith: { first, _ in first })
        let resumed = manager.resumeTasks { session, description in
            widgetURL(session, description) ?? extensionURLs["\(session)\n\(description ?? "")"]
        }
        if !resumed.isEmpty { log?.info("resumed \(resumed.count) background transfer(s)") }
    }

    private func quit(status: Int32) -> Never {
        terminal.end()
        extensions.stopAll()
        sessions?.close()
        bundledServer?.stop()
        log?.info("exiting with status \(status)")
        exit(status)
    }

    // MARK: Helpers

    private func widgetEnvironment(_ driver: TimelineDriver) -> WidgetEnvironment {
        let clock = driver.clock
        return WidgetEnvironment(now: { clock.now }, variables: environment.variables,
                                 stateDirectory: stateDirectory, center: driver.center)
    }

    static func schedulerConfiguration(_ config: DashboardConfig) -> SchedulerConfiguration {
        SchedulerConfiguration(minimumReloadInterval: TimeInterval(config.minimumReloadSeconds),
                               dailyReloadBudget: config.dailyReloadBudget)
    }

    /// The built-in themes plus the one in use (if it is a user theme), for `t`.
    static func themeCycle(current: Theme) -> (list: [Theme], index: Int) {
        var list = Theme.builtinNames.compactMap { Theme.builtin(named: $0) }
        if let index = list.firstIndex(of: current) { return (list, index) }
        list.insert(current, at: 0)
        return (list, 0)
    }
}
