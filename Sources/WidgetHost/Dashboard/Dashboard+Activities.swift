import DateTime
import FoundationEssentials
import TerminalUI
import WidgetCore

/// Live Activities and the history on the dashboard (DESIGN.md §11): requests from
/// `widgethost activity` arrive as `.activityRequested` messages (the control socket checked
/// them first, `checkActivity`), the journal's board as `.activitiesRestored` at start-up, and
/// the one timer — armed only while an ended activity waits to leave or an active one to turn
/// stale — as `.activitiesDue`. What must last is an effect: `.saveActivities`, `.recordEvents`.
extension Dashboard {
    /// The events an `events` panel keeps at hand (the journal keeps 10,000).
    static let recentEventCount = 200

    /// Why `request` would be refused now (nil: it would be applied): the control socket's
    /// answer, given before the message is sent.
    func checkActivity(_ request: ActivityRequest, at now: Date) -> String? {
        var board = activities
        do { _ = try board.apply(request, at: now) } catch { return error.description }
        return nil
    }

    /// Applies `.activityRequested`.
    mutating func applyActivity(_ request: ActivityRequest) {
        guard let change = try? activities.apply(request, at: now) else { return }
        if let event = change.event { record([event]) }
        activitiesChanged()
    }

    /// Applies `.activitiesRestored`: the journal's board and newest events, at start-up.
    mutating func restoreActivities(_ restored: [Activity], events: [HistoryEvent]) {
        activities = ActivityBoard(restored)
        recentEvents = Array(events.suffix(Self.recentEventCount))
        if activities.removeDismissed(at: now) { emit(.saveActivities(activities.activities)) }
        armActivityWake()
        updateAlerts(quietly: true)  // a failure restored was acted on in its run
        emit(.present)
    }

    /// Applies `.activitiesDue`: ended ones leave, active ones turn stale.
    mutating func activitiesDue() {
        activityWakeDate = nil
        if activities.removeDismissed(at: now) { emit(.saveActivities(activities.activities)) }
        armActivityWake()
        emit(.present)
    }

    /// Keeps `events` (newest last) and asks for them to be journaled.
    mutating func record(_ events: [HistoryEvent]) {
        recentEvents = Array((recentEvents + events).suffix(Self.recentEventCount))
        emit(.recordEvents(events))
    }

    /// One ended with `--dismiss-after 0` leaves at the wake armed for now, not within this
    /// message: its failure is an alert first (read after every message), then it goes.
    private mutating func activitiesChanged() {
        emit(.saveActivities(activities.activities))
        armActivityWake()
        emit(.present)
    }

    private mutating func armActivityWake() {
        let next = activities.nextChange(after: now)
        guard next != activityWakeDate else { return }
        activityWakeDate = next
        emit(.armActivityWake(next))
    }

    // MARK: Drawing

    /// The entry a host panel (`HostPanels`) shows now; nil for every other kind.
    func hostEntry(for kind: String, now: Date) -> (any TimelineEntry)? {
        switch kind {
        case HostPanels.activitiesKind:
            return ActivitiesEntry(date: now, activities: activities.activities, unicode: glyphs.isUnicode)
        case HostPanels.eventsKind:
            let rows = recentEvents.reversed().map { event in
                EventsEntry.Row(time: eventTime(event.time, now: now), level: event.level, kind: event.kind,
                                text: event.panel.map { "\($0): \(event.text)" } ?? event.text)
            }
            return EventsEntry(date: now, rows: rows, unicode: glyphs.isUnicode)
        default:
            return nil
        }
    }

    /// `14:05` today, `12-01 14:05` before, in the host's zone.
    private func eventTime(_ time: Date, now: Date) -> String {
        func civil(_ date: Date) -> CivilTime {
            let seconds = min(max(date.timeIntervalSince1970.rounded(.down), ISOText.years.lowerBound), ISOText.years.upperBound)
            return CivilTime(unixSeconds: Int64(seconds), offset: statusZone.offset(at: date).seconds)
        }
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let t = civil(time), today = civil(now)
        let clock = "\(two(t.hour)):\(two(t.minute))"
        return (t.year, t.month, t.day) == (today.year, today.month, today.day) ? clock : "\(two(t.month))-\(two(t.day)) \(clock)"
    }

    /// The status bar's compact line (`⏵ build 40% · deploy ✔`) when no `activities` panel
    /// is on the page shown; nil when there is none to show.
    var activityStatusLine: String? {
        guard !activities.activities.isEmpty,
              !panels[pageRange].contains(where: { $0.members.contains { $0.widget.kind == HostPanels.activitiesKind } })
        else { return nil }
        let unicode = glyphs.isUnicode
        return activities.activities.prefix(4).map { activity in
            let progress = activity.state == .active ? activity.progress.map { " " + ActivityMarks.percent($0) } ?? "" : ""
            let mark = activity.state == .active ? ActivityMarks.mark(.active, unicode: unicode) + " " : ""
            let outcome = activity.isEnded ? " " + ActivityMarks.mark(activity.state, unicode: unicode) : ""
            return mark + activity.id + progress + outcome
        }.joined(separator: unicode ? " · " : " - ")
    }
}
