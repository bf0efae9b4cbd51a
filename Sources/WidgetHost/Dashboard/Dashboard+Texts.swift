import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

/// Text that updates itself (DESIGN.md §3): date nodes, date pieces and timer bars are drawn
/// at the frame's time, and the dashboard wakes when one that is on screen would change —
/// one wake-up (`.armTextWake` → `.textsDue`), armed in `update` for the earliest change of
/// the panels shown (the page shown, or the zoomed panel; a stack's shown member) and the
/// status bar's clock. Nothing shown changes: nothing is armed.
extension Dashboard {
    /// What a member of a panel shows at `now` in `rect`: its view, the context it was made
    /// with, and its timeline's status; nil before it has any entry.
    func memberView(_ member: DashboardPanel.Member, in panel: DashboardPanel, rect: Rect, zoomed: Bool,
                    now: Date) -> (view: PanelView, context: WidgetViewContext, status: TimelineScheduler.Status?)? {
        let status = timelines.status(of: member.id)
        let hosted = hostEntry(for: member.widget.kind, now: now)
        guard let entry = hosted ?? status?.entry ?? timelines.placeholder(for: member.id) else { return nil }
        var context = WidgetViewContext(family: family(of: member, in: panel, zoomed: zoomed),
                                        size: CellSize(columns: rect.width, rows: rect.height),
                                        isPlaceholder: hosted == nil && status?.entry == nil,
                                        renderingMode: WidgetRenderingMode(renderingMode))
        var view = member.widget.view(entry, context)
        if zoomed && scrollOffset > 0 || view.contentHeight.map({ $0 > rect.height }) == true {
            // The view is drawn as tall as it wants, so it is asked for that size.
            context.size.rows = max(rect.height, min(view.contentHeight ?? rect.height, 10_000))
            view = member.widget.view(entry, context)
        }
        return (view, context, status)
    }

    /// The first moment after `now` at which the frame would change by itself: the earliest
    /// next change of the date nodes and timer bars of the panels on screen, and of the status
    /// bar's clock. nil: nothing shown changes with time.
    func nextTextChange(after now: Date) -> Date? {
        guard !isTooSmall else { return nil }
        var next: Date? = edit == nil ? statusClockText(at: now).nextChange(after: now) : nil
        let shown = isZoomed ? focusedPanel.map { [($0, panelArea, true)] } ?? []
            : shownPanels.map { ($0.panel, $0.frame, false) }
        for (panel, frame, zoomed) in shown where panel.setupError == nil {
            for (index, (member, rect)) in zip(panel.members, contentRects(for: panel, in: frame)).enumerated()
            where !panel.isStack || index == panel.shown {
                guard let made = memberView(member, in: panel, rect: rect, zoomed: zoomed, now: now),
                      let change = made.view.node.nextDateChange(after: now, width: rect.width) else { continue }
                if next.map({ change < $0 }) ?? true { next = change }
            }
        }
        return next
    }

    /// Arms the text wake-up for `nextTextChange` when it moved (called after every message).
    mutating func armTextWake() {
        let next = nextTextChange(after: now)
        guard next != textWakeDate else { return }
        textWakeDate = next
        emit(.armTextWake(next))
    }

    /// Applies `.textsDue`: something on screen changed its text; draw it.
    mutating func textsDue() {
        textWakeDate = nil
        emit(.present)
    }

    /// The status bar's clock: the minute in the host's zone, as a clock face in the offset in
    /// force at `now` (its next change is the next minute; a DST change falls on one).
    func statusClockText(at now: Date) -> DateText {
        DateText.clock([.hour24, .literal(":"), .minute], utcOffset: statusZone.offset(at: now).seconds)
    }

    /// The status bar's time text at `now` ("14:05").
    func statusTime(at now: Date) -> String { statusClockText(at: now).text(at: now) }
}
