import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// The `activities` panel: each activity newest first — its state's mark and title with its
/// progress and elapsed time on the right, then (as rows allow) its progress bar and detail.
/// A stale one is drawn in the `stale` role, an ended one in its outcome's.
enum ActivitiesView {
    static func node(_ entry: ActivitiesEntry, context: WidgetViewContext) -> ViewNode {
        guard !entry.activities.isEmpty else {
            return .vstack([.spacer, .text("no activities", role: .muted, alignment: .center),
                            .text("widgethost activity start ID --title T", role: .muted, alignment: .center), .spacer])
        }
        let lines = linesPerActivity(entry.activities.count, rows: context.size.rows)
        var children: [ViewNode] = []
        for activity in entry.activities {
            let role = ActivityMarks.role(activity, at: entry.date)
            children.append(headline(activity, role: role, entry: entry, width: context.size.columns, withBar: lines == 1))
            if lines >= 2 {
                if let progress = activity.progress {
                    children.append(.bar(progress, role: role, label: ActivityMarks.percent(progress), showsTrack: true))
                } else {
                    children.append(.text(activity.detail ?? stateText(activity, at: entry.date), role: .muted))
                }
            }
            if lines >= 3 {
                children.append(.text(activity.progress == nil ? "" : activity.detail ?? stateText(activity, at: entry.date), role: .muted))
            }
        }
        return .vstack(children)
    }

    static func contentHeight(_ entry: ActivitiesEntry, context: WidgetViewContext) -> Int? {
        entry.activities.count * linesPerActivity(entry.activities.count, rows: context.size.rows)
    }

    /// 3 lines each (title, bar, detail) when they fit, else 2, else 1.
    static func linesPerActivity(_ count: Int, rows: Int) -> Int {
        guard count > 0 else { return 1 }
        return rows >= count * 3 ? 3 : rows >= count * 2 ? 2 : 1
    }

    /// `⏵ title          40% · 3m`: the right part stays, the title gives way. On one line
    /// (no room for a bar) the percentage stands for it.
    private static func headline(_ activity: Activity, role: StyleRole, entry: ActivitiesEntry, width: Int, withBar: Bool) -> ViewNode {
        var right: [String] = []
        if activity.state == .active, let progress = activity.progress, withBar { right.append(ActivityMarks.percent(progress)) }
        if activity.isStale(at: entry.date) { right.append("stale") }
        if activity.isEnded { right.append(activity.state.rawValue) }
        let end = activity.isEnded ? activity.updated : entry.date
        right.append(DurationText.age(from: activity.started, to: end))
        let rightText = " " + right.joined(separator: entry.unicode ? " · " : " - ")
        let mark = ActivityMarks.mark(activity.state, unicode: entry.unicode) + " "
        let room = max(0, width - DisplayWidth.of(rightText) - DisplayWidth.of(mark))
        let title = DisplayWidth.truncate(activity.title, toWidth: room, ellipsis: entry.unicode ? "…" : "...")
        let gap = String(repeating: " ", count: max(0, room - DisplayWidth.of(title)))
        return .text([
            ViewNode.Span(mark, role: role, bold: true),
            ViewNode.Span(title + gap, role: activity.isStale(at: entry.date) ? .stale : .foreground, bold: true),
            ViewNode.Span(rightText, role: role == .accent ? .muted : role),
        ])
    }

    private static func stateText(_ activity: Activity, at now: Date) -> String {
        switch activity.state {
        case .active: activity.isStale(at: now) ? "no update for \(DurationText.age(from: activity.updated, to: now))" : "running"
        case .success: "succeeded"
        case .failure: "failed"
        case .cancelled: "cancelled"
        }
    }
}

/// The `events` panel: one line per event, newest first — time, mark, text.
enum EventsView {
    static func node(_ entry: EventsEntry, context: WidgetViewContext) -> ViewNode {
        guard !entry.rows.isEmpty else {
            return .vstack([.spacer, .text("no events yet", role: .muted, alignment: .center), .spacer])
        }
        return .vstack(entry.rows.map { row in
            let role: StyleRole = switch row.level {
            case .info: row.kind == .activity ? .accent : .foreground
            case .warning: .warning
            case .critical: .negative
            }
            let mark = switch row.level {
            case .info: entry.unicode ? "•" : "*"
            case .warning, .critical: entry.unicode ? "⚠" : "!"
            }
            return .text([ViewNode.Span(row.time + " ", role: .muted), ViewNode.Span(mark + " ", role: role, bold: true),
                          ViewNode.Span(row.text, role: row.level == .info ? .foreground : role)])
        })
    }
}
