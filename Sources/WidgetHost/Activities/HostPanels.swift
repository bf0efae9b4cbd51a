import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// The panel kinds whose content is the dashboard's own state, not a provider's: `activities`
/// (the Live Activities) and `events` (the history). They are catalogue kinds like any other
/// (a config names them, `widgets` lists them); their provider answers one empty entry and
/// never reloads, and the dashboard draws them from its `ActivityBoard` and recent events
/// (`Dashboard.hostEntry(for:)`), so an `activity update` shows at once, with no timeline
/// request in between.
enum HostPanels {
    static let activitiesKind = "activities"
    static let eventsKind = "events"

    static var definitions: [WidgetDefinition] { [activities, events] }

    static let activities = definition(
        WidgetManifest(kind: activitiesKind, displayName: "Live Activities",
                       description: "Activities started and updated from a shell (widgethost activity): title, detail, progress, elapsed time, state.",
                       defaultFamily: .medium, pausesWithAutomaticReloads: false, usesNetwork: false, runsOnLoop: true),
        view: emptyOr(ActivitiesEntry.self, empty: { ActivitiesEntry(date: $0, activities: [], unicode: true) },
                      PanelView.typed(ActivitiesView.node, contentHeight: ActivitiesView.contentHeight)),
        entry: ActivitiesPanelEntry.self)

    static let events = definition(
        WidgetManifest(kind: eventsKind, displayName: "Events",
                       description: "The history of activities and alerts, newest first (widgethost events).",
                       defaultFamily: .medium, pausesWithAutomaticReloads: false, usesNetwork: false, runsOnLoop: true),
        view: emptyOr(EventsEntry.self, empty: { EventsEntry(date: $0, rows: [], unicode: true) },
                      PanelView.typed(EventsView.node, contentHeight: { entry, _ in entry.rows.count })),
        entry: EventsPanelEntry.self)

    private static func definition<Entry: HostPanelEntry>(_ manifest: WidgetManifest,
                                                          view: @escaping @Sendable (any TimelineEntry, WidgetViewContext) -> PanelView,
                                                          entry: Entry.Type) -> WidgetDefinition {
        WidgetDefinition(manifest: manifest) { _ in
            TerminalWidget(manifest: manifest, makeProvider: { _ in AnyTimelineProvider(HostPanelProvider<Entry>()) }, view: view)
        }
        .entryType(Entry.self)
    }

    static func isHostKind(_ kind: String) -> Bool { kind == activitiesKind || kind == eventsKind }

    /// `view` for the dashboard's entries; where there is only the provider's (`preview`, the
    /// edit mode's gallery), the panel as it looks with nothing in it.
    private static func emptyOr<Entry: TimelineEntry>(_ type: Entry.Type, empty: @escaping @Sendable (Date) -> Entry,
                                                      _ view: @escaping @Sendable (any TimelineEntry, WidgetViewContext) -> PanelView)
        -> @Sendable (any TimelineEntry, WidgetViewContext) -> PanelView {
        { entry, context in view(entry is Entry ? entry : empty(entry.date), context) }
    }
}

/// The one entry a host panel's provider gives: nothing in it (the dashboard draws the panel).
protocol HostPanelEntry: TimelineEntry, Equatable, Codable {
    init(date: Date)
}

struct ActivitiesPanelEntry: HostPanelEntry { var date: Date }
struct EventsPanelEntry: HostPanelEntry { var date: Date }

struct HostPanelProvider<Entry: HostPanelEntry>: TimelineProvider {
    func placeholder(in context: Context) -> Entry { Entry(date: .distantPast) }
    func snapshot(in context: Context) async -> Entry { Entry(date: .distantPast) }
    func timeline(in context: Context) async throws -> Timeline<Entry> { timelineOnLoop(in: context)! }
    func timelineOnLoop(in context: Context) -> Timeline<Entry>? { Timeline(entries: [Entry(date: .distantPast)], policy: .never) }
}

/// What an `activities` panel shows: the board at a moment.
struct ActivitiesEntry: TimelineEntry {
    var date: Date
    var activities: [Activity]
    var unicode: Bool
}

/// What an `events` panel shows: the newest events as lines (time in the host's zone).
struct EventsEntry: TimelineEntry {
    struct Row: Equatable, Sendable {
        var time: String
        var level: HistoryEvent.Level
        var kind: HistoryEvent.Kind
        var text: String
    }

    var date: Date
    var rows: [Row]
    var unicode: Bool
}

/// The marks of an activity's state (`⏵ ✔ ✖ ■`, or ASCII).
enum ActivityMarks {
    static func mark(_ state: Activity.State, unicode: Bool) -> String {
        switch state {
        case .active: unicode ? "⏵" : ">"
        case .success: unicode ? "✔" : "+"
        case .failure: unicode ? "✖" : "x"
        case .cancelled: unicode ? "■" : "-"
        }
    }

    static func role(_ activity: Activity, at now: Date) -> StyleRole {
        switch activity.state {
        case .active: activity.isStale(at: now) ? .stale : .accent
        case .success: .positive
        case .failure: .negative
        case .cancelled: .muted
        }
    }

    static func percent(_ progress: Double) -> String { "\(Int((progress * 100).rounded(.down)))%" }
}
