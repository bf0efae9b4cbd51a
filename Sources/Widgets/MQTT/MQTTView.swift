import FoundationEssentials
import TerminalUI
import WidgetCore

/// How an `mqtt` entry looks: the rows, label left and value right (`—` until a value comes);
/// "showing N of M topics" when not all fit; a warning when topics beyond the cap were not
/// kept, or a payload could not be shown; then the link: `live`, "connecting…", or
/// "⚠ <reason> · reconnecting".
enum MQTTView {
    static func view(_ entry: MQTTEntry, context: WidgetViewContext) -> ViewNode {
        let placeholder = context.isPlaceholder
        var status = placeholder ? [] : statusLines(entry)
        // The rows come first; the link's line stays.
        while status.count > 1, context.size.rows < status.count + 1 { status.removeFirst() }
        var room = max(0, context.size.rows - status.count)
        let cut = entry.listsTopics && entry.rows.count > room
        if cut { room = max(0, room - 1) }
        let shown = Array(entry.rows.prefix(room))
        // Labels (topics, mostly) as wide as the longest shown, up to half the panel.
        let labelWidth = min(shown.map(\.label.count).max() ?? 0, context.size.columns / 2)
        var lines: [ViewNode] = [.table(ViewNode.Table(
            columns: [ViewNode.Column(minimum: labelWidth), ViewNode.Column(alignment: .right)],
            rows: shown.map { row in
                [ViewNode.Cell(row.label, role: placeholder ? .placeholder : .muted),
                 ViewNode.Cell(row.value ?? "", pieces: row.value == nil ? [.glyph(.missing)] : [],
                               role: placeholder ? .placeholder : (row.value == nil ? .muted : .accent),
                               bold: row.value != nil && !placeholder)]
            }))]
        if cut, !placeholder {
            lines.append(.text("showing \(grouped(shown.count)) of \(grouped(entry.rows.count)) topics", role: .muted))
        }
        return .vstack(lines + [.spacer] + status)
    }

    /// The warnings (topics not kept, a payload not shown), then the link.
    static func statusLines(_ entry: MQTTEntry) -> [ViewNode] {
        var lines: [ViewNode] = []
        if entry.droppedMessages > 0 {
            lines.append(warning("over \(MQTTTopicTable.maximumTopics) topics: \(grouped(entry.droppedMessages)) messages on others not kept"))
        }
        if let notice = entry.notice { lines.append(warning(notice)) }
        switch entry.link {
        case .live: lines.append(.text("live", role: .muted))
        case .connecting: lines.append(.text([ViewNode.Span("connecting", pieces: [.glyph(.ellipsis)], role: .muted)]))
        case .down(let reason): lines.append(warning(reason + " · reconnecting"))
        case .unavailable(let reason): lines.append(.text(reason, role: .muted))
        }
        return lines
    }

    private static func warning(_ text: String) -> ViewNode {
        .text([ViewNode.Span(pieces: [.glyph(.warning), .text(" " + text)], role: .warning)])
    }

    private static func grouped(_ count: Int) -> String { DecimalText.grouped(Double(count), decimals: 0) }
}
