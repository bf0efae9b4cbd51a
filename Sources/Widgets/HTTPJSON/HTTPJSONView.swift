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
        // Fields spread down the room they have, blank rows between them, so a tall panel has
        // no blank band under them (DESIGN.md §9).
        let count = entry.rows.count
        let spacing = count > 1 && room > count ? (room - count) / (count - 1) : 0
        func spread(_ lines: [ViewNode]) -> [ViewNode] {
            Array(lines.enumerated().flatMap { index, line in (index > 0 ? Array(repeating: .text(""), count: spacing) : []) + [line] }
                .prefix(room))
        }
        // Where every label and value fit with room to spare: one line each, leader dots from
        // the label to the value, so a wide panel has no blank column between them.
        let columns = context.size.columns
        let widths = entry.rows.map { row in
            (label: DisplayWidth.of(Sanitizer.sanitize(row.label)),
             value: row.value.map { DisplayWidth.of(Sanitizer.sanitize($0)) } ?? ViewNode.Glyph.missing.widestWidth)
        }
        if !placeholder, !entry.rows.isEmpty, widths.allSatisfy({ $0.label + $0.value + 4 <= columns }) {
            let lines: [ViewNode] = zip(entry.rows, widths).map { row, width in
                .text([ViewNode.Span(row.label + " ", pieces: [.glyph(.leader, count: columns - width.label - width.value - 2)],
                                     role: .muted),
                       ViewNode.Span(" ", pieces: [row.value.map { .text($0) } ?? .glyph(.missing)],
                                     role: row.value == nil ? .muted : row.alerting == true ? .warning : .accent, bold: row.value != nil)])
            }
            return .vstack(spread(lines) + [.spacer] + status)
        }
        var rows: [[ViewNode.Cell]] = []
        for (index, row) in entry.rows.enumerated() {
            if index > 0 { rows += Array(repeating: [], count: spacing) }
            rows.append([ViewNode.Cell(row.label, role: placeholder ? .placeholder : .muted),
                         ViewNode.Cell(row.value ?? "", pieces: row.value == nil ? [.glyph(.missing)] : [],
                                       role: placeholder ? .placeholder : (row.value == nil ? .muted : row.alerting == true ? .warning : .accent),
                                       bold: row.value != nil && !placeholder)])
        }
        let table = ViewNode.table(ViewNode.Table(
            columns: [ViewNode.Column(minimum: min(12, columns / 2)), ViewNode.Column(alignment: .right)],
            rows: Array(rows.prefix(room))))
        return .vstack([table, .spacer] + status)
    }

    /// "updated 5m ago"; "⚠ reason · retry in 40s" then "data 5m old"; "fetching…".
    static func statusLines(_ entry: HTTPJSONEntry) -> [ViewNode] {
        if let error = entry.fetchError {
            var pieces: [ViewNode.Piece] = [.glyph(.warning), .text(" " + error)]
            if let retryAt = entry.retryAt, let retry = error.ranges(of: " · retry in ").last {
                // The seconds count down at each frame's time.
                pieces = [.glyph(.warning), .text(" " + error[..<retry.upperBound]), .date(DateText.secondsLeft(to: retryAt, shownAt: entry.date))]
            }
            var lines: [ViewNode] = [.text([ViewNode.Span(pieces: pieces, role: .warning)])]
            if entry.hasData, let fetchedAt = entry.fetchedAt {
                lines.append(.text("data \(DurationText.age(from: fetchedAt, to: entry.date)) old", role: .warning))
            }
            return lines
        }
        if let fetchedAt = entry.fetchedAt, entry.hasData {
            // "updated 5m ago" at each frame's time (text that updates itself).
            return [.text([ViewNode.Span("updated ", pieces: [.date(DateText(fetchedAt, style: .relative, shownAt: entry.date))], role: .muted)])]
        }
        if entry.isFetching { return [.text([ViewNode.Span("fetching", pieces: [.glyph(.ellipsis)], role: .muted)])] }
        return []
    }
}
