import FoundationEssentials
import TerminalUI
import WidgetCore

/// A panel's alert that started or rose, for the host to notify (`.notify`).
package struct AlertNotice: Equatable, Sendable {
    var panel: String
    var level: EntryAlert.Level
    var text: String
    var settings: NotifyConfig
}

/// Alerts (DESIGN.md §11): after each message, every panel's alert is read from the entries it
/// shows (`WidgetConfiguration.alerting`; the activities panel's from a failed activity). When
/// one starts or its level rises — edge-triggered, not while it stands — an event is recorded
/// and, at most once per panel per `notify.cooldownSeconds`, the host notifies (`.notify`). The
/// border shows the standing alert's level while it lasts.
extension Dashboard {
    /// Reads every panel's alert now; `quietly` takes them as they are without acting (the
    /// state a restart comes back to was acted on before).
    mutating func updateAlerts(quietly: Bool = false) {
        var current: [WidgetInstanceID: EntryAlert] = [:]
        var risen: [(panel: DashboardPanel, alert: EntryAlert)] = []
        for panel in panels {
            guard let key = panel.members.first?.id, let alert = alert(of: panel) else { continue }
            current[key] = alert
            if panelAlerts[key].map({ alert.level > $0.level }) ?? true { risen.append((panel, alert)) }
        }
        guard current != panelAlerts else { return }
        panelAlerts = current
        emit(.present)
        guard !quietly, !risen.isEmpty else { return }
        // The journal reads a title back up to an activity's length: longer, the event would be lost.
        record(risen.map { HistoryEvent(time: now, kind: .alert, panel: String($0.panel.title.prefix(ActivityRequest.maximumTitle)),
                                        title: String($0.panel.title.prefix(ActivityRequest.maximumTitle)),
                                        level: $0.alert.level == .critical ? .critical : .warning, text: $0.alert.text) })
        for (panel, alert) in risen where !notify.isQuiet {
            guard let key = panel.members.first?.id else { continue }
            // A clock set back does not hold the cooldown for the size of the step.
            if let last = lastNotified[key], last <= now, now.timeIntervalSince(last) < TimeInterval(notify.cooldownSeconds) { continue }
            lastNotified[key] = now
            emit(.notify(AlertNotice(panel: panel.title, level: alert.level, text: alert.text, settings: notify)))
        }
    }

    /// The highest alert of the panel's members' entries now.
    func alert(of panel: DashboardPanel) -> EntryAlert? {
        panel.members.compactMap { member -> EntryAlert? in
            if member.widget.kind == HostPanels.activitiesKind {
                return activities.activities.first { $0.state == .failure }.map { failed in
                    EntryAlert(level: .critical, text: failed.title + " failed" + (failed.detail.map { ": " + $0 } ?? ""))
                }
            }
            guard let entry = timelines.status(of: member.id)?.entry else { return nil }
            return member.widget.alert(for: entry, options: member.options)
        }.max { $0.level < $1.level }
    }

    /// The border's role for the panel's standing alert (nil: none).
    func alertRole(of panel: DashboardPanel) -> StyleRole? {
        guard let key = panel.members.first?.id, let alert = panelAlerts[key] else { return nil }
        return alert.level == .critical ? .negative : .warning
    }
}
