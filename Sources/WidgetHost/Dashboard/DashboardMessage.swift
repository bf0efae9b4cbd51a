import FoundationEssentials
import TerminalUI
import WidgetCore

/// Everything that can change the dashboard, as one value: what the loop's descriptors, the
/// driver and asynchronous work report, fed to `Dashboard.update(_:at:)` one at a time
/// (STYLE.md §4; bubbletea's `Msg`).
///
/// Where each comes from in the running dashboard (`DashboardRunner`): keys from stdin;
/// `resized`, `quit`, `suspend`, `childExited` and `configChanged` from the signalfd
/// (`SignalTranslator`); `configChanged` also from inotify; `clockSet` from the timerfd's
/// `ECANCELED`; `providerAnswered` from a provider call's task, `timelinesDue` and
/// `relevanceExpired` from the wake-ups the program arms, `reloadsRequested` from the
/// `WidgetCenter` (how session events and extensions ask for new timelines);
/// `configLoaded` /
/// `configRejected` from `ConfigReloader`; `panelsBuilt` from the `.buildPanels` effect; `actionFinished` from an action's task, its timeout
/// or the terminal. A test feeds them through `HeadlessDashboard.send(_:)`.
package enum DashboardMessage: Equatable, Sendable {
    case key(Key)
    /// The terminal has a new size.
    case resized(TerminalSize)
    /// End the dashboard (SIGTERM, SIGINT, a hung-up terminal).
    case quit
    /// Ctrl-Z (SIGTSTP): give the terminal back and stop.
    case suspend
    /// SIGCHLD: children of ours may have exited.
    case childExited
    /// A Smart Stack member's relevance ran out.
    case relevanceExpired
    /// The pages' rotation (`rotateSeconds`) came: show the next page.
    case pageRotationDue
    /// A provider answered a timeline request (`.startProvider`), or failed.
    case providerAnswered(ProviderAnswer)
    /// The timelines' wake-up (`.armTimelineWake`) came: entries, reloads or timeouts are due.
    case timelinesDue
    /// Widgets (a session's delegate, an extension) asked `WidgetCenter` for reloads.
    case reloadsRequested([WidgetCenter.Request])
    /// A config reload found the extensions again: new panels are built from these widgets.
    case widgetsFound(BoundWidgets)
    /// The config file changed or SIGHUP asked for a reload; `reason` goes to the log.
    case configChanged(reason: String)
    /// A config reload found the extensions again; `notice` names those skipped (nil: none).
    case extensionsFound(notice: String?)
    /// A reloaded config, valid, with its theme.
    case configLoaded(DashboardConfig, Theme)
    /// The panels of a reloaded config, their providers made (`.buildPanels`).
    case panelsBuilt([PreparedPanel])
    /// A reload that was refused: the notice says why (nil: there is no file to reload).
    case configRejected(notice: String?)
    /// The system's wall clock was set (an NTP step, a resumed VM), by `step` seconds
    /// (negative: back; measured against the monotonic clock by the loop).
    case clockSet(step: TimeInterval)
    /// The link `o` asked for was handed to the opener, or not: `failure` says why.
    case linkOpened(failure: String?)
    /// An action ended; `failure` says why it failed.
    case actionFinished(WidgetInstanceID, action: WidgetAction, failure: String?)
    /// The config file read for edit mode (`.openEditor`), or why it cannot be edited.
    case editorOpened(EditorOpening)
    /// What came of `.saveConfig`.
    case configSaved(ConfigSaveOutcome)
    /// A gallery preview's snapshot (`.previewGallery`).
    case galleryPreviewed(GalleryPreview)
    /// A picker's items from the widget's options provider (`.queryOptions`), or why none.
    case optionsAnswered(OptionsAnswer)
    /// `widgethost activity start|update|end`, checked, from the control socket.
    case activityRequested(ActivityRequest)
    /// The journal's activities and newest events (oldest first), at start-up.
    case activitiesRestored([Activity], events: [HistoryEvent])
    /// The activities' timer (`.armActivityWake`) came: an ended one leaves, one turns stale.
    case activitiesDue
    /// The text wake-up (`.armTextWake`) came: a date node on screen changed its text.
    case textsDue
}

/// What `Dashboard.update(_:at:)` asks the host to do (bubbletea's `Cmd`). The timeline effects
/// (what the timelines decide: `startProvider`, `cancelProvider`, `armTimelineWake`,
/// `publishWidgets`), actions
/// (`runAction`) and the stacks' wake-up (`armRelevanceWake`) run in `DashboardProgram`; the
/// others are the host's (`DashboardHost`): the terminal runner's or the headless one's.
package enum DashboardEffect: Equatable, Sendable {
    /// Draw a frame (coalesced: one per loop turn).
    case present
    /// Call a provider off the loop; it answers with `.providerAnswered`.
    case startProvider(ProviderCall)
    /// Cancel an instance's provider call (timed out, or the panel went); its answer still comes.
    case cancelProvider(WidgetInstanceID)
    /// Arm the timelines' one wake-up (nil: none), replacing the one armed; it sends `.timelinesDue`.
    case armTimelineWake(Date?)
    /// Publish the widgets `WidgetCenter.currentConfigurations()` lists (panels came or went).
    case publishWidgets([WidgetCenter.WidgetInfo])
    /// Run an action's perform off the loop, racing its timeout; it answers with `.actionFinished`.
    case runAction(ActionRun)
    /// Arm the stacks' wake-up for the first relevance that runs out (nil: none); it sends
    /// `.relevanceExpired`.
    case armRelevanceWake(Date?)
    /// Arm the pages' rotation (nil: none), replacing the one armed; it sends `.pageRotationDue`.
    case armPageRotation(Date?)
    case setTheme(Theme)
    /// Open a link with the user's opener (`$BROWSER`, `xdg-open`); the host answers with
    /// `.linkOpened`.
    case openURL(String)
    /// Run a program in the foreground with the terminal given back (an action such as
    /// `$EDITOR`); the host answers with `.actionFinished`.
    case runInTerminal([String], member: WidgetInstanceID, action: WidgetAction)
    /// Give the terminal back and stop (Ctrl-Z); on resume the host sends `.resized`.
    case suspend
    /// Reap exited children.
    case reapChildren
    /// Read the config again; the host answers with `.configLoaded` or `.configRejected`.
    case reloadConfig(reason: String)
    /// Make the providers of a config's new and changed panels (the widgets' factories, with
    /// their side effects); the program answers with `.panelsBuilt`.
    case buildPanels(DashboardConfig)
    /// A reloaded config is in use: what follows a reload (`ConfigReloader.applied`).
    case configApplied(DashboardConfig)
    case log(String)
    case quit(status: Int32)
    /// Read the config file for edit mode; the host answers with `.editorOpened`.
    case openEditor
    /// Save the edited document in place of the file (`overwrite`: even if it changed on
    /// disk); the host answers with `.configSaved`.
    case saveConfig(EditableConfig, ConfigDocument, overwrite: Bool)
    /// Make the sample panel's provider and ask it for its snapshot (`isPreview`); the program
    /// answers with `.galleryPreviewed`.
    case previewGallery(GalleryRequest)
    /// Ask a kind's `DynamicOptionsProvider` for a picker's items, off the loop; the program
    /// answers with `.optionsAnswered`.
    case queryOptions(OptionsRequest)
    /// Arm the activities' timer (nil: none), replacing the one armed; it sends `.activitiesDue`.
    case armActivityWake(Date?)
    /// Journal the board (the host's `ActivityJournal`; headless: nothing).
    case saveActivities([Activity])
    /// Append events to the journal's history.
    case recordEvents([HistoryEvent])
    /// A panel's alert started or rose: ring, notify, run the config's command (`notify`).
    case notify(AlertNotice)
    /// Arm the text wake-up (nil: none), replacing the one armed: the next change of a date
    /// node on screen (Dashboard+Texts); it sends `.textsDue`.
    case armTextWake(Date?)
}
