import FoundationEssentials
import TerminalUI
import WidgetCore

/// How a `prometheus` entry looks. `value`: the first series' latest value, centred, with its
/// label. `sparkline`: a row per series — label, its values, latest value. `table`: a row per
/// series — label and latest value. Values past `alertAbove`/`alertBelow` are in the warning
/// role. Under the rows, "showing N of M series" when not all fit or were kept, then the
/// status: "updated 5s ago", or "⚠ <Prometheus's message>" and how old the data shown is.
enum PrometheusView {
    static func view(_ entry: PrometheusEntry, context: WidgetViewContext) -> ViewNode {
        node(entry, context: context)
    }

    static func node(_ entry: PrometheusEntry, context: WidgetViewContext) -> ViewNode {
        let placeholder = context.isPlaceholder
        var statusEntry = HTTPJSONEntry(date: entry.date, rows: [], hasData: entry.hasData, fetchedAt: entry.fetchedAt,
                                        fetchError: entry.fetchError, isFetching: entry.isFetching)
        statusEntry.retryAt = entry.retryAt
        var status = placeholder ? [] : HTTPJSONView.statusLines(statusEntry)
        if status.count > 1, context.size.rows < 3 { status.removeLast(status.count - 1) }
        if entry.display == .value {
            guard let row = entry.rows.first else { return .vstack([.spacer] + status) }
            let role: StyleRole = placeholder ? .placeholder : (entry.isAlerting(row.latest) ? .warning : .accent)
            return .vstack([.spacer, .text([valueSpan(entry, row.latest, role: role, bold: !placeholder)], alignment: .center),
                            .text(row.label, role: placeholder ? .placeholder : .muted, alignment: .center), .spacer] + status)
        }
        if entry.rows.isEmpty, entry.hasData, !placeholder {
            return .vstack([.text("no series", role: .muted, alignment: .center), .spacer] + status)
        }
        var room = max(0, context.size.rows - status.count)
        let cut = entry.rows.count > room || entry.totalSeries > entry.rows.count
        if cut { room = max(0, room - 1) }
        let shown = Array(entry.rows.prefix(room))
        // A missing value is the glyph set's one-column mark.
        func width(_ value: Double?) -> Int { value == nil ? 1 : entry.text(value).count }
        var lines: [ViewNode]
        if entry.display == .table {
            // The values' column as wide as its widest; the labels take the rest.
            let valueWidth = shown.map { width($0.latest) }.max() ?? 0
            lines = [.table(ViewNode.Table(
                columns: [ViewNode.Column(), ViewNode.Column(alignment: .right, minimum: min(valueWidth, context.size.columns / 2))],
                rows: shown.map { row in
                    [ViewNode.Cell(row.label, role: placeholder ? .placeholder : .muted),
                     ViewNode.Cell(row.latest == nil ? "" : entry.text(row.latest), pieces: row.latest == nil ? [.glyph(.missing)] : [],
                                   role: valueRole(entry, row, placeholder: placeholder), bold: !placeholder)]
                }))]
        } else {
            // Labels and values padded to one width, so the sparklines line up; a long label is
            // cut with the glyph set's ellipsis.
            let labelWidth = min(shown.map(\.label.count).max() ?? 0, max(4, context.size.columns / 3))
            let valueWidth = shown.map { width($0.latest) }.max() ?? 0
            lines = shown.map { row in
                let labelRole: StyleRole = placeholder ? .placeholder : .muted
                let label = row.label.count > labelWidth
                    ? ViewNode.Span(row.label, pieces: [], role: labelRole, limit: labelWidth)
                    : ViewNode.Span(row.label + String(repeating: " ", count: labelWidth - row.label.count), role: labelRole)
                let padding = ViewNode.Span(String(repeating: " ", count: valueWidth - width(row.latest)))
                return .hstack([.text([label]),
                                .sparkline(row.points.map { $0.isFinite ? $0 : 0 }, role: placeholder ? .placeholder : .accent),
                                .text([padding, valueSpan(entry, row.latest, role: valueRole(entry, row, placeholder: placeholder),
                                                          bold: !placeholder)])], gap: 1)
            }
        }
        if cut, !placeholder {
            lines.append(.text("showing \(DecimalText.grouped(Double(shown.count), decimals: 0)) of \(DecimalText.grouped(Double(entry.totalSeries), decimals: 0)) series",
                               role: .muted))
        }
        return .vstack(lines + [.spacer] + status)
    }

    /// A value as a span: its text, or the glyph set's missing mark.
    private static func valueSpan(_ entry: PrometheusEntry, _ value: Double?, role: StyleRole, bold: Bool) -> ViewNode.Span {
        value == nil ? .glyph(.missing, role: role, bold: bold) : ViewNode.Span(entry.text(value), role: role, bold: bold)
    }

    private static func valueRole(_ entry: PrometheusEntry, _ row: PrometheusEntry.Row, placeholder: Bool) -> StyleRole {
        placeholder ? .placeholder : (entry.isAlerting(row.latest) ? .warning : .accent)
    }
}
