import DateTime
import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// The dashboard's state and behaviour on the host's serial loop: panels, focus, zoom, help,
/// pause, theme, notices; keys and resizes come in, frames go out.
///
/// A value: messages come in through `update(_:at:)` (Dashboard+Update), the one place it
/// changes, which returns the effects to run (`DashboardEffect`): a frame whenever something
/// visible changed — the runner draws one per loop turn —, provider calls and the wake-ups,
/// reloads, a theme, a program to run, quitting. The timelines are part of the value
/// (`TimelineState`): what they decide comes out as effects, their inputs (answers, the
/// wake-up, `WidgetCenter` requests) come back as messages. It reads no clock (the time comes
/// with each message), starts no task and holds no reference that changes: a copy is a
/// dashboard of its own (`DashboardValueTests`).
@MainActor
struct Dashboard {
    var timelines: TimelineState
    private(set) var panels: [DashboardPanel] = []
    var focus = 0
    /// The focused panel fills the panel area; its widgets are asked at the largest family
    /// they support and at that size (`relayout`), and asked again at their own when it ends.
    var isZoomed = false { didSet { if isZoomed != oldValue { relayout() } } }
    var isHelpShown = false
    var scrollOffset = 0
    private(set) var isPaused = false
    /// The privacy mode (`P`, `--private`): what views mark `privacySensitive` is drawn
    /// redacted (WidgetKit's `redacted(reason: .privacy)`).
    var isPrivate = false
    /// How the frame uses colour (the terminal's, or `--rendering-mode`): in every view's and
    /// provider call's context; outside `fullColor` an alerted panel's border is double (warning) or
    /// heavy (critical).
    var renderingMode = RenderingMode.fullColor {
        didSet { timelines.renderingMode = WidgetRenderingMode(renderingMode) }
    }
    private(set) var size: TerminalSize
    /// Themes `t` cycles through, and the index of the one in use.
    private(set) var themes: [Theme]
    private(set) var themeIndex = 0
    /// A message for the status bar when something is wrong (bad config reload, no sessions).
    var notice: String? { didSet { if notice != oldValue { emit(.present) } } }
    /// The notice that stands when nothing else is wrong (background sessions off, bad
    /// extension manifests): a config reload goes back to it.
    var standingNotice: String? { sessionsNotice ?? extensionsNotice }
    /// Why background sessions are off (a second dashboard on the same state), from the start.
    var sessionsNotice: String?
    /// The extensions skipped for bad manifests, found again at each config reload.
    var extensionsNotice: String?
    let glyphs: GlyphSet
    private let layout = GridLayout()
    /// The zone the status bar's clock reads its minutes in (the host's: `$TZ`, /etc/localtime).
    let statusZone: ZoneInfo
    /// When the text wake-up is armed: the next change of a date node on screen or of the
    /// status bar's clock (Dashboard+Texts; nil: none).
    var textWakeDate: Date?
    /// The last panel frames laid out, for spatial focus moves.
    private var panelFrames: [Rect] = []
    /// When the stacks' wake-up is armed: a stack member's relevance runs out (its
    /// `duration`), to rotate then (`.armRelevanceWake`, `.relevanceExpired`).
    private(set) var stackWakeDate: Date?
    /// The config's pages (Dashboard+Pages); empty: one page of every panel.
    var pages: [PageConfig] = []
    /// The page shown.
    var page = 0
    /// Cycle the pages this often (`rotateSeconds`), and when the rotation is armed.
    var rotateSeconds: Int?
    var rotationDate: Date?
    /// The last click on a panel (its time and index): a second soon after on it is a double
    /// click (Dashboard+Mouse).
    var lastClick: (date: Date, panel: Int)?
    /// A word for the status bar until the next key ("this panel has no link").
    var flash: String?
    /// Edit mode (`E`, Dashboard+Edit): the config being edited; nil when not editing.
    var edit: EditSession?

    /// Actions running or failed, by the member performing them.
    var actionStates: [WidgetInstanceID: PanelActionState] = [:]

    /// The Live Activities (Dashboard+Activities), the newest events, and when the
    /// activities' one timer is armed (nil: none).
    var activities = ActivityBoard()
    var recentEvents: [HistoryEvent] = []
    var activityWakeDate: Date?
    /// Each panel's standing alert (by its first member), when each last notified, and how
    /// (Dashboard+Alerts; the config's `notify`).
    var panelAlerts: [WidgetInstanceID: EntryAlert] = [:]
    var lastNotified: [WidgetInstanceID: Date] = [:]
    var notify = NotifyConfig()

    /// Effects of the message being applied, returned by `update(_:at:)`.
    var outbox: [DashboardEffect] = []
    /// The time of the message being applied (of the construction, before the first).
    var now: Date
    /// Builds panels from a config (`.buildPanels`): the host's widgets, which a config reload
    /// may find again (`.widgetsFound`).
    var panelFactory: PanelFactory?

    /// The smallest terminal the dashboard draws panels in; smaller shows a notice.
    static let minimumSize = TerminalSize(columns: 20, rows: 7)

    /// - Parameter clock: what the status bar's clock provider reads (the dashboard itself
    ///   takes its time from the messages).
    init(size: TerminalSize, glyphs: GlyphSet, themes: [Theme], environment: [String: String],
         configuration: SchedulerConfiguration = .init(), clock: any WidgetClock) {
        timelines = TimelineState(configuration: configuration)
        now = clock.now
        self.size = size
        self.glyphs = glyphs
        self.themes = themes.isEmpty ? [Theme.default] : themes
        // The status bar's clock is text that updates itself (Dashboard+Texts): the text
        // wake-up comes at each minute, with the panels' changes, and costs nothing between.
        statusZone = ZoneInfo.local(environment: environment)
        absorbTimelines()
        armTextWake()
    }

    /// What the construction decided (the status bar clock's first call, its wake-up): the
    /// program runs these once, before the first message.
    mutating func takeStartEffects() -> [DashboardEffect] {
        defer { outbox = [] }
        return outbox
    }

    // MARK: Panels

    /// Replaces the panels (start-up and config reloads); instances of panels that are not in
    /// `newPanels` any more are removed. Focus stays on the same index when it still exists.
    mutating func setPanels(_ newPanels: [DashboardPanel]) {
        let kept = Set(newPanels.flatMap { $0.members.map(\.id) })
        for old in panels { for member in old.members where !kept.contains(member.id) { timelines.remove(member.id, now: now) } }
        actionStates = actionStates.filter { kept.contains($0.key) }  // a running one's answer is then dropped
        panels = newPanels
        if !pageRange.contains(focus) { focus = pageRange.lowerBound }
        scrollOffset = 0
        if panels.isEmpty { isZoomed = false }
        relayout()
        updateHidden()
        updateStacks()
        emit(.present)
    }

    var focusedPanel: DashboardPanel? { panels.indices.contains(focus) ? panels[focus] : nil }

    // MARK: Input

    /// Applies a key press (`update(.key(_:))`).
    mutating func handle(_ key: Key) {
        armRotation()  // any key holds the pages' rotation for `rotateSeconds`
        if flash != nil {
            flash = nil
            emit(.present)
        }
        if isHelpShown {
            switch key {
            // In edit mode `q` closes the help, as any key: quitting there would drop the edits.
            case .character("q") where edit == nil: emit(.quit(status: 0))
            case .ctrlC: emit(.quit(status: 0))
            case .resize: relayout()
            default: isHelpShown = false
            }
            emit(.present)
            return
        }
        if edit != nil, key != .ctrlC {
            handleEdit(key)
            emit(.present)
            return
        }
        switch key {
        case .character("q"), .ctrlC:
            emit(.quit(status: 0))
            return
        case .character("?"), .function(1):
            isHelpShown = true
        case .tab:
            moveFocus(by: 1)
        case .backTab:
            moveFocus(by: -1)
        case .up, .character("k"):
            if isZoomed { scroll(by: -1) } else { moveFocus(.up) }
        case .down, .character("j"):
            if isZoomed { scroll(by: 1) } else { moveFocus(.down) }
        case .left, .character("h"):
            if !isZoomed { moveFocus(.left) }
        case .right, .character("l"):
            if !isZoomed { moveFocus(.right) }
        case .pageUp:
            if isZoomed { scroll(by: -max(1, size.rows - 4)) }
        case .pageDown:
            if isZoomed { scroll(by: max(1, size.rows - 4)) }
        case .enter:
            if focusedPanel != nil { isZoomed = true; scrollOffset = 0 }
        case .escape:
            isZoomed = false
            scrollOffset = 0
        case .character("["):
            flipFocusedStack(by: -1)
        case .character("]"):
            flipFocusedStack(by: 1)
        case .character("r"):
            if let panel = focusedPanel { clearFailedActions(of: panel) }
            for member in focusedPanel?.members ?? [] { timelines.reload(member.id, userInitiated: true, now: now) }
        case .character("R"):
            for id in panels.flatMap({ $0.members.map(\.id) }) { timelines.reload(id, userInitiated: true, now: now) }
        case .character("t"):
            themeIndex = (themeIndex + 1) % themes.count
            emit(.setTheme(themes[themeIndex]))
        case .character("p"):
            isPaused.toggle()
            timelines.setAutomaticReloadsPaused(isPaused, now: now)
        case .character("P"):
            isPrivate.toggle()
        case .resize:
            relayout()
        case .control("l"):
            break  // a plain redraw
        case .mouse(let event):
            guard handleMouse(event) else { return }
        case .character("o"):
            openLink()
        case .character(let digit) where pages.count > 1 && ("1"..."9").contains(digit):
            show(page: Int(String(digit))! - 1)
        case .character("E"):
            emit(.openEditor)
        case .character(let character):
            // The focused panel's own keys come after every global one, so they never shadow it.
            if let panel = focusedPanel { clearFailedActions(of: panel) }
            guard performAction(key: String(character)) else { return }
        default:
            return
        }
        emit(.present)
    }

    /// The terminal changed size (`update(.resized(_:))`).
    mutating func resize(to newSize: TerminalSize) {
        guard newSize != size else { return }
        size = newSize
        relayout()
        emit(.present)
    }

    /// Queues an effect for the caller of `update(_:)`.
    mutating func emit(_ effect: DashboardEffect) {
        if effect == .present, outbox.contains(.present) { return }
        outbox.append(effect)
    }

    /// Uses theme `index` of `themes` (start-up; `t` moves on from there).
    mutating func selectTheme(at index: Int) {
        themeIndex = themes.indices.contains(index) ? index : 0
    }

    /// Replaces the themes `t` cycles through (a reloaded config may name another theme).
    mutating func setThemes(_ newThemes: [Theme], selected index: Int) {
        themes = newThemes.isEmpty ? [Theme.default] : newThemes
        selectTheme(at: index)
    }

    mutating func moveFocus(by step: Int) {
        let shown = panelFrames.count  // panels that do not fit are not focused
        guard shown > 0 else { return }
        let first = pageRange.lowerBound
        focus = first + ((focus - first) % shown + step % shown + shown) % shown
        scrollOffset = 0
    }

    enum Direction { case up, down, left, right }

    /// Moves focus to the nearest panel in `direction`, by the panels' centres.
    mutating func moveFocus(_ direction: Direction) {
        let first = pageRange.lowerBound
        guard panelFrames.indices.contains(focus - first) else { return }
        let from = panelFrames[focus - first]
        let (fx, fy) = (from.x * 2 + from.width, from.y * 2 + from.height)
        var best: (index: Int, score: Int)?
        for (i, frame) in panelFrames.enumerated() where i != focus - first {
            let (cx, cy) = (frame.x * 2 + frame.width, frame.y * 2 + frame.height)
            let ahead: Bool
            switch direction {
            case .up: ahead = frame.maxY <= from.y
            case .down: ahead = frame.y >= from.maxY
            case .left: ahead = frame.maxX <= from.x
            case .right: ahead = frame.x >= from.maxX
            }
            guard ahead else { continue }
            let score = abs(cx - fx) + abs(cy - fy)
            if best == nil || score < best!.score { best = (i, score) }
        }
        if let best { focus = first + best.index; scrollOffset = 0 }
    }

    mutating func scroll(by lines: Int) {
        scrollOffset = min(max(0, scrollOffset + lines), maximumScroll)
    }

    /// How far the zoomed panel can scroll: its tallest member's content below the view.
    private var maximumScroll: Int {
        guard isZoomed, let panel = focusedPanel else { return 0 }
        let rects = contentRects(for: panel, in: panelArea)
        // A stack scrolls the member it shows.
        let shown = zip(panel.members, rects).enumerated().filter { !panel.isStack || $0.offset == panel.shown }.map(\.element)
        return shown.map { member, rect -> Int in
            guard let entry = hostEntry(for: member.widget.kind, now: now) ?? timelines.status(of: member.id)?.entry else { return 0 }
            let view = member.widget.view(entry, WidgetViewContext(family: family(of: member, in: panel, zoomed: true),
                                                                   size: CellSize(columns: rect.width, rows: rect.height),
                                                                   renderingMode: WidgetRenderingMode(renderingMode)))
            return max(0, (view.contentHeight ?? rect.height) - rect.height)
        }.max() ?? 0
    }

    mutating func relayout() {
        let area = panelArea
        let range = pageRange
        if let grid = pageGrid {
            panelFrames = layout.frames(on: grid, areas: panels[range].map { $0.config?.area ?? "" }, in: area) ?? []
        } else {
            panelFrames = layout.frames(for: panels[range].map(\.family), in: area) ?? []
        }
        if !panelFrames.isEmpty, focus >= range.lowerBound + panelFrames.count {
            focus = range.lowerBound + panelFrames.count - 1
            scrollOffset = 0
        }
        for (index, frame) in zip(range, panelFrames) {
            let panel = panels[index]
            let zoomed = isZoomed && index == focus
            let inner = contentRects(for: panel, in: zoomed ? panelArea : frame)
            for (member, rect) in zip(panel.members, inner) {
                timelines.resize(member.id, to: CellSize(columns: rect.width, rows: rect.height),
                                 family: family(of: member, in: panel, zoomed: zoomed), now: now)
            }
        }
    }

    /// The family a member is asked and drawn at: its panel's, or zoomed, the largest its
    /// widget supports (never a smaller one than the panel's).
    func family(of member: DashboardPanel.Member, in panel: DashboardPanel, zoomed: Bool) -> WidgetFamily {
        guard zoomed else { return panel.family }
        let order = WidgetFamily.allCases
        let rank = { (family: WidgetFamily) in order.firstIndex(of: family) ?? 0 }
        let largest = member.widget.supportedFamilies.max { rank($0) < rank($1) } ?? panel.family
        return rank(largest) > rank(panel.family) ? largest : panel.family
    }

    /// The area for panels: everything but the status bar.
    var panelArea: Rect { Rect(x: 0, y: 0, width: size.columns, height: max(0, size.rows - 1)) }

    /// The terminal size the panels need at the current width (status bar included).
    var neededSize: TerminalSize {
        let area = layout.minimumArea(for: panels[pageRange].map(\.family), width: size.columns)
        return TerminalSize(columns: max(area.width, Self.minimumSize.columns), rows: max(area.height + 1, Self.minimumSize.rows))
    }

    var isTooSmall: Bool {
        size.columns < Self.minimumSize.columns || size.rows < Self.minimumSize.rows
            || (!pageRange.isEmpty && panelFrames.isEmpty)
    }

    /// Panels that do not fit the terminal (the layout shows the first that do, whole): the
    /// status bar counts them.
    var hiddenPanelCount: Int { panelFrames.isEmpty ? 0 : pageRange.count - panelFrames.count }

    /// Content rectangles of a panel's members: the box's inside; in a stack, which shows one
    /// member at a time, each member gets the inside below its title row.
    func contentRects(for panel: DashboardPanel, in frame: Rect) -> [Rect] {
        let inner = Box.inner(of: frame)
        guard panel.isStack else { return [inner] }
        return Array(repeating: inner.inset(top: 1), count: panel.members.count)
    }

    // MARK: Smart Stacks

    /// Shows in each stack the member its `StackRotation` chooses for its members' relevances
    /// now, then arms a wake-up for the first relevance that runs out.
    mutating func updateStacks() {
        var expiry: Date?
        for index in panels.indices where panels[index].isStack {
            let members = panels[index].members
            if let end = StackRotation.nextExpiry(of: members.map { timelines.status(of: $0.id)?.entry }, after: now),
               expiry.map({ end < $0 }) ?? true {
                expiry = end
            }
            let answered = members.map { member in
                timelines.status(of: member.id).map { $0.entry != nil || $0.lastFailure != nil } ?? true
            }
            // Smart Rotate off: every member counts the same, so the one shown stays.
            let rotates = panels[index].config?.smartRotate ?? true
            panels[index].rotation.update(relevances: members.map { rotates ? timelines.scheduler.relevance(of: $0.id, now: now) : nil },
                                          answered: answered)
        }
        guard expiry != stackWakeDate else { return }
        stackWakeDate = expiry
        emit(.armRelevanceWake(expiry))
    }

    /// Takes what the timelines decided: their effects become the dashboard's, and changed
    /// panels mean the stacks' choice and a frame.
    mutating func absorbTimelines() {
        let output = timelines.takeOutput()
        for effect in output.effects {
            switch effect {
            case .start(let call): emit(.startProvider(call))
            case .cancel(let id): emit(.cancelProvider(id))
            case .arm(let date): emit(.armTimelineWake(date))
            case .publish(let widgets): emit(.publishWidgets(widgets))
            }
        }
        guard !output.changed.isEmpty else { return }
        updateStacks()
        emit(.present)
    }

    /// The stacks' wake-up came (`update(.relevanceExpired)`).
    mutating func relevanceExpired() {
        stackWakeDate = nil
        updateStacks()
    }

    /// `[` / `]`: shows the previous / next member of the focused stack; the choice holds until
    /// a member's relevance changes.
    private mutating func flipFocusedStack(by step: Int) {
        guard panels.indices.contains(focus), panels[focus].isStack else { return }
        let relevances = panels[focus].members.map { timelines.scheduler.relevance(of: $0.id, now: now) }
        panels[focus].rotation.flip(by: step, relevances: relevances)
        scrollOffset = 0
    }

    // MARK: Status

    /// The panels of the page shown that are laid out, with their frames and indices.
    var shownPanels: [(index: Int, panel: DashboardPanel, frame: Rect)] {
        panelFrames.enumerated().map { (pageRange.lowerBound + $0.offset, panels[pageRange.lowerBound + $0.offset], $0.element) }
    }
}
