import Extensions
import FoundationEssentials
import LeaderboardServer
import TerminalUI
import WidgetCore
import Widgets

/// A dashboard without a terminal, on a manual clock: what `widgethost snapshot` renders, what
/// `widgethost-bench` keeps alive to render frames again and again, and the tests' pilot
/// (Textual's `run_test`): feed it messages and time, read its frames and state.
///
/// It builds the config's panels (the default dashboard starts the bundled leaderboard
/// server, as the dashboard does), fetches through `HeadlessSessions` — never the dashboard's
/// own state directory — and runs the same `DashboardProgram` as the terminal, with the
/// effects a terminal would run kept here instead (`HeadlessEffects`).
///
/// ```swift
/// let pilot = try HeadlessDashboard.open(catalog: .builtin(), configPath: path, size: size, now: start).get()
/// pilot.press(.tab)
/// pilot.advance(by: 60)
/// #expect(pilot.lines[0].contains("Clock"))
/// ```
@MainActor
package final class HeadlessDashboard {
    /// The dashboard's time; `advance(by:)` moves it.
    package let clock: ManualClock
    private let program: DashboardProgram
    private let effects: HeadlessEffects
    private let binding: HeadlessBinding
    private let server: LeaderboardService?
    private var log = MessageLog()

    private init(binding: HeadlessBinding, program: DashboardProgram, effects: HeadlessEffects, server: LeaderboardService?) {
        clock = binding.clock
        self.binding = binding
        self.program = program
        self.effects = effects
        self.server = server
    }

    /// Builds the dashboard of the config found from `configPath` (as the dashboard finds it)
    /// at `size` and time `now`. Fails with the command output that explains why (bad config
    /// or theme: exit 2).
    ///
    /// - Parameters:
    ///   - catalog: the widget kinds (from `main`).
    ///   - stateDirectory: a dashboard's state directory whose cached widget data is copied in
    ///     (read, never written); nil starts empty.
    ///   - io: where temporary files go and the transport (a test's `FakeTransport`, say).
    ///   - extensions: the extensions whose kinds `catalog` holds; their `reloadTimelines`
    ///     notifications go to this dashboard's scheduler.
    package static func open(catalog: Catalog, configPath: String?, theme: String? = nil, stateDirectory: String? = nil,
                             size: TerminalSize, now: Date, environment: HostEnvironment = .current(),
                             io: HostIO? = nil, extensions: ExtensionRuntime? = nil,
                             renderingMode: RenderingMode = .fullColor) -> Result<HeadlessDashboard, CommandOutput> {
        var setup: DashboardSetup
        switch DashboardSetup.load(configPath: configPath, theme: theme, environment: environment, catalog: catalog) {
        case .success(let loaded): setup = loaded
        case .failure(let output): return .failure(output)
        }
        let server: LeaderboardService?
        switch setup.startBundledServer(log: nil, catalog: catalog) {
        case .success(let service): server = service
        case .failure(let output): return .failure(output)
        }
        guard let binding = HeadlessBinding(catalog: catalog, now: now, seed: stateDirectory, io: io,
                                            variables: environment.variables) else {
            server?.stop()
            return .failure(CommandOutput(exitCode: 1, standardError: "widgethost: cannot create a temporary directory\n"))
        }
        // An extension's reloadTimelines (after its sessionEvents, say) reaches this dashboard.
        extensions?.setCenter(binding.center)
        let themes = Theme.cycle(current: setup.theme)
        var dashboard = Dashboard(size: size, glyphs: GlyphSet.forLocale(environment: environment.variables),
                                  themes: themes.list, environment: environment.variables,
                                  configuration: SchedulerConfiguration(setup.config), clock: binding.clock)
        dashboard.selectTheme(at: themes.index)
        dashboard.renderingMode = renderingMode
        dashboard.panelFactory = PanelFactory(widgets: binding.widgets)
        dashboard.setPages(setup.config.pages, rotateSeconds: setup.config.rotateSeconds)
        dashboard.armRotation()
        let effects = HeadlessEffects(theme: setup.theme,
                                      reloader: ConfigReloader(path: setup.configPath, catalog: catalog, widgets: binding.widgets,
                                                               themeOverride: theme,
                                                               environment: environment, log: nil))
        let program = DashboardProgram(dashboard: dashboard, clock: binding.clock, center: binding.center, host: effects)
        program.send(.panelsBuilt(DashboardBuilder.prepare(setup.config, widgets: binding.widgets, reusing: [])))
        return .success(HeadlessDashboard(binding: binding, program: program, effects: effects, server: server))
    }

    // MARK: Messages and time

    /// Applies a message as the running dashboard's loop would, with its effects.
    package func send(_ message: DashboardMessage) { program.send(message) }

    /// Applies a key as the running dashboard would (`r` reloads the focused panel, say).
    package func press(_ key: Key) { send(.key(key)) }

    /// The terminal is now `size`.
    package func resize(to size: TerminalSize) { send(.resized(size)) }

    /// Moves the clock; timelines advance synchronously (provider calls it starts run on).
    package func advance(by seconds: TimeInterval) { clock.advance(by: seconds) }

    /// The wall clock is set to `date` (forwards or backwards), as an NTP step does, and the
    /// dashboard is told (`.clockSet`, the loop's timerfd `ECANCELED`).
    package func setClock(to date: Date) {
        let step = date.timeIntervalSince(clock.now)
        clock.set(to: date)
        send(.clockSet(step: step))
    }

    /// Waits until no provider call runs, no download runs, no session event waits and no
    /// answer waits in the mailbox, at most `seconds`; true when everything settled in time.
    ///
    /// Downloads finish on the network thread and come back as `WidgetCenter` reloads through
    /// the loop's mailbox: it waits for those, and for the sessions going idle, never polls.
    package func settle(within seconds: Double) async -> Bool {
        // A replaying dashboard starts nothing (its inputs are the log's): nothing to wait for,
        // and a call the driver chose but did not start would be waited for forever.
        guard !program.isReplaying else { return true }
        return await finishes(within: seconds) { [program, sessions = binding.sessions, mailbox = program.mailbox] in
            await sessions.wait(until: {
                await program.settle()
                return sessions.isIdle && mailbox.isEmpty
            }, wakeup: mailbox.arrivals)
        }
    }

    /// Waits until no provider call runs (providers answer on other threads) and their answers
    /// are applied; no polling.
    package func settleProviders() async {
        guard !program.isReplaying else { return }  // see `settle(within:)`
        await program.settle()
    }

    /// Lets `seconds` of simulated time pass as a running dashboard lives them: the clock
    /// moves from one wake-up to the next, and whatever starts there (provider calls,
    /// downloads) finishes before time moves on, as it would in real time. Jumping the clock
    /// in one step would instead let requests time out while their answers are on the way.
    ///
    /// - Returns: false when a step did not settle within `settleWithin` seconds.
    package func run(for seconds: TimeInterval, settleWithin: Double = 10) async -> Bool {
        precondition(!program.isReplaying, "a replaying dashboard takes its time from the log")
        let end = clock.now + seconds
        var settled = true
        while clock.now < end {
            let next = min(clock.nextScheduledDate ?? end, end)
            clock.advance(to: max(next, clock.now))
            await program.settle()
            if !binding.sessions.isIdle { settled = await settle(within: settleWithin) && settled }
        }
        return settled
    }

    // MARK: Recording and replaying

    /// Starts keeping every message applied from now on, with its time (`recordedMessages`).
    package func recordMessages() {
        program.onMessage = { [weak self] message in
            guard let self else { return }
            log.append(message, at: clock.now)
        }
    }

    /// The messages kept since `recordMessages()`.
    package var recordedMessages: MessageLog { log }

    /// Applies `records` (a `MessageLog`'s, or part of one, in order) as they were applied in a
    /// recorded run of the same config, size and start time: the clock is set to each
    /// record's time, then the message is applied. From the first call on, the dashboard
    /// takes its inputs only from the log: provider calls, wake-ups, actions and config reads
    /// are not started, and answers of calls started before are dropped. Synchronous: nothing
    /// is waited for.
    package func replay(_ records: some Sequence<MessageLog.Record>) {
        program.isReplaying = true
        for record in records {
            clock.set(to: record.date)
            program.send(record.message)
        }
    }

    // MARK: Frames and state

    /// Draws the whole frame at the clock's time (what the running dashboard does per frame).
    package func render() -> CellBuffer { program.render() }

    /// The frame as text lines (`TextBackend`).
    package var lines: [String] { TextBackend.lines(render()) }

    /// The theme in use (`--theme`, the config's, `t`'s or a reloaded config's).
    package var theme: Theme { effects.theme }
    /// The number of panels laid out.
    package var panelCount: Int { dashboard.panels.count }
    /// The dashboard's state now (a value: a copy does not change with it).
    var dashboard: Dashboard { program.dashboard }
    package var panelTitles: [String] { dashboard.panels.map(\.title) }
    package var focus: Int { dashboard.focus }
    package var isZoomed: Bool { dashboard.isZoomed }
    package var isPaused: Bool { dashboard.isPaused }
    package var isHelpShown: Bool { dashboard.isHelpShown }
    package var notice: String? { dashboard.notice }
    /// The status `quit` was asked with (`q`, SIGTERM), or nil while running.
    package var quitStatus: Int32? { effects.quitStatus }
    /// The links `o` asked to open.
    package var openedLinks: [String] { effects.openedLinks }
    /// Frames asked for since the last `takeFrameRequests()` (coalesced per message).
    package func takeFrameRequests() -> Int {
        defer { effects.frameRequests = 0 }
        return effects.frameRequests
    }

    /// Why this command has no background sessions (so nothing is fetched), or nil.
    var sessionsUnavailable: String? { binding.sessions.unavailable }

    /// Stops the bundled server, closes the sessions and removes their temporary directory.
    package func close() {
        server?.stop()
        binding.sessions.close()
    }
}

/// The effects a terminal would run, kept for a headless dashboard: frames are counted (the
/// frame is drawn on demand), the theme is remembered, nothing runs in a terminal, quitting
/// is recorded, config reloads read the file as the dashboard does.
@MainActor
final class HeadlessEffects: DashboardHost {
    var theme: Theme
    var frameRequests = 0
    var quitStatus: Int32?
    /// The links `o` asked to open (none is opened headless).
    var openedLinks: [String] = []
    private let reloader: ConfigReloader

    init(theme: Theme, reloader: ConfigReloader) {
        self.theme = theme
        self.reloader = reloader
    }

    func perform(_ effect: DashboardEffect, in program: DashboardProgram) {
        switch effect {
        case .present: frameRequests += 1
        case .setTheme(let theme): self.theme = theme
        case .openURL(let url):
            openedLinks.append(url)
            program.send(.linkOpened(failure: nil))
        case .runInTerminal(_, let member, let action):
            program.send(.actionFinished(member, action: action, failure: "no terminal to run it in"))
        case .reloadConfig(let reason): reloader.load(reason: reason).forEach(program.send)
        case .configApplied(let config): reloader.applied(config)
        case .openEditor: program.send(.editorOpened(reloader.openEditor()))
        case .saveConfig(let file, let document, let overwrite):
            program.send(.configSaved(reloader.save(document, to: file, overwrite: overwrite)))
        case .quit(let status): quitStatus = status
        case .suspend, .reapChildren, .log, .startProvider, .cancelProvider, .armTimelineWake, .publishWidgets, .runAction,
             .armRelevanceWake, .armPageRotation, .buildPanels, .previewGallery, .queryOptions, .armActivityWake, .saveActivities, .recordEvents,
             .notify, .armTextWake: break
        }
    }
}
