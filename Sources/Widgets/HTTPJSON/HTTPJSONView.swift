import FoundationEssentials
import TerminalUI
import WidgetCore

/// How an `http-json` entry looks: one row per field, the label on the left and the value on
/// the right (`—` where the document has nothing), and a last line that says how old the
/// values are, or why the last fetch failed and how old the values shown are.
enum HTTPJSONView {
    static func view(_ entry: HTTPJSONEntry, context: WidgetViewContext) -> ViewNode {
        node(entry, context: context)
    }

    static func node(_ entry: HTTPJSONEntry, context: WidgetViewContext) -> ViewNode {
        let placeholder = context.isPlaceholder
        var status = placeholder ? [] : statusLines(entry)
        // The fields come first; the status keeps at least its first line.
        if status.count > 1, context.size.rows < entry.rows.count + status.count { status.removeLast(status.count - 1) }
        let room = max(0, context.size.rows - status.count)
        let table = ViewNode.table(ViewNode.Table(
            columns: [ViewNode.Column(minimum: min(12, context.size.columns / 2)), ViewNode.Column(alignment: .right)],
            rows: entry.rows.prefix(room).map { row in
                [ViewNode.Cell(row.label, role: placeholder ? .placeholder : .muted),
                 ViewNode.Cell(row.value ?? "", pieces: row.value == nil ? [.glyph(.missing)] : [],
                               role: placeholder ? .placeholder : (row.value == nil ? .muted : .accent),
                               bold: row.value != nil && !placeholder)]
            }))
        return .vstack([table, .spacer] + status)
    }

    /// "updated 5m ago"; "⚠ reason · retry in 40s" then "data 5m old"; "fetching…".
    static func statusLines(_ entry: HTTPJSONEntry) -> [ViewNode] {
        if let error = entry.fetchError {
            var lines: [ViewNode] = [.text([ViewNode.Span(pieces: [.glyph(.warning), .text(" " + error)], role: .warning)])]
            if entry.hasData, let fetchedAt = entry.fetchedAt {
                lines.append(.text("data \(DurationText.age(from: fetchedAt, to: entry.date)) old", role: .warning))
            }
            return lines
        }
        if let fetchedAt = entry.fetchedAt, entry.hasData {
            return [.text("updated \(DurationText.age(from: fetchedAt, to: entry.date)) ago", role: .muted)]
        }
        if entry.isFetching { return [.text([ViewNode.Span("fetching", pieces: [.glyph(.ellipsis)], role: .muted)])] }
        return []
    }
}
