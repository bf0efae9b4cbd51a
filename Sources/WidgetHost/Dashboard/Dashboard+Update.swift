import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// How panels are built from a config: the host's widgets and the environment they get.
@MainActor
struct PanelFactory {
    var widgets: BoundWidgets

    /// The providers of `config`'s new and changed panels, made (`.buildPanels`).
    func prepare(_ config: DashboardConfig, reusing previous: [DashboardPanel]) -> [PreparedPanel] {
        DashboardBuilder.prepare(config, widgets: widgets, reusing: previous)
    }
}

extension Dashboard {
    /// Applies one message, which happened at `now`, and returns the effects to run, in order
    /// (STYLE.md §4).
    ///
    /// The one place the dashboard's state changes: keys, resizes, provider answers, the
    /// timelines' and stacks' wake-ups, `WidgetCenter` requests, config reloads, the clock being
    /// set, actions ending. The timelines are part of the state: what they decide (a provider
    /// call, the wake-up, the `WidgetCenter` listing) comes back as effects of this call, so
    /// `update` starts no task, arms no timer and reads no clock. Effects are coalesced where
    /// that is the meaning (at most one `.present` per call).
    mutating func update(_ message: DashboardMessage, at now: Date) -> [DashboardEffect] {
        self.now = now
        switch message {
        case .key(let key):
            handle(key)
        case .resized(let newSize):
            resize(to: newSize)
            emit(.present)  // the terminal was resized and may have been cleared: draw it again
        case .quit:
            emit(.quit(status: 0))
        case .suspend:
            emit(.suspend)
        case .childExited:
            emit(.reapChildren)
        case .relevanceExpired:
            relevanceExpired()
            emit(.present)
        case .pageRotationDue:
            rotatePage()
        case .providerAnswered(let answer):
            timelines.receive(answer, now: now)
        case .timelinesDue:
            timelines.wake(now: now)
        case .reloadsRequested(let requests):
            timelines.apply(requests, now: now)
        case .configChanged(let reason):
            // Not under an edit: saving asks about a file changed meanwhile, leaving reads it.
            if edit == nil { emit(.reloadConfig(reason: reason)) }
        case .editorOpened(let opening):
            editorOpened(opening)
        case .configSaved(let outcome):
            configSaved(outcome)
        case .galleryPreviewed(let preview):
            galleryPreviewed(preview)
        case .optionsAnswered(let answer):
            optionsAnswered(answer)
        case .configLoaded(let config, let theme):
            timelines.updateConfiguration(SchedulerConfiguration(config))
            notify = config.notify
            setPages(config.pages, rotateSeconds: config.rotateSeconds)  // the panels follow (.panelsBuilt)
            armRotation()
            let cycle = Theme.cycle(current: theme)
            setThemes(cycle.list, selected: cycle.index)
            emit(.setTheme(theme))
            emit(.buildPanels(config))
            notice = standingNotice
            emit(.configApplied(config))
            emit(.present)
        case .configRejected(let rejection):
            notice = rejection ?? standingNotice
        case .extensionsFound(let found):
            extensionsNotice = found  // shown by the verdict that follows
        case .clockSet(let step):
            // The scheduler never moves an entry backwards on its own: after the clock was
            // set back, every widget is asked for a timeline from the new now; its history and
            // waits move with the clock first.
            emit(.log("the system clock was set (\(step >= 0 ? "+" : "")\(Int(min(max(step, -1e12), 1e12).rounded())) s): reloading every widget"))
            timelines.reloadAllForEnvironment(clockStep: step, now: now)
        case .linkOpened(let failure):
            if let failure {
                flash = failure
                emit(.present)
            }
        case .actionFinished(let id, let action, let failure):
            actionFinished(id, action: action, failure: failure)
        case .activityRequested(let request):
            applyActivity(request)
        case .activitiesRestored(let restored, let events):
            restoreActivities(restored, events: events)
        case .activitiesDue:
            activitiesDue()
        case .textsDue:
            textsDue()
        case .widgetsFound(let widgets):
            panelFactory?.widgets = widgets
        case .panelsBuilt(let prepared):
            // New instances are added in one batch, so their first request carries the
            // laid-out size.
            timelines.beginBatch()
            let built = DashboardBuilder.install(prepared, into: &timelines, now: now, reusing: panels)
            setPanels(built)
            timelines.endBatch(now: now)
        }
        absorbTimelines()
        updateAlerts()
        armTextWake()
        defer { outbox = [] }
        return outbox
    }
}

extension SchedulerConfiguration {
    /// The scheduler's rules from a config's `minimumReloadSeconds` and `dailyReloadBudget`.
    init(_ config: DashboardConfig) {
        self.init(minimumReloadInterval: TimeInterval(config.minimumReloadSeconds), dailyReloadBudget: config.dailyReloadBudget)
    }
}

extension Theme {
    /// The built-in themes plus `current` (if it is a user theme), for `t`, and its index.
    static func cycle(current: Theme) -> (list: [Theme], index: Int) {
        var list = Theme.builtinNames.compactMap { Theme.builtin(named: $0) }
        if let index = list.firstIndex(of: current) { return (list, index) }
        list.insert(current, at: 0)
        return (list, 0)
    }
}
