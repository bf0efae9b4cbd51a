import FoundationEssentials
import TerminalUI
import WidgetCore

/// How an `http-json` entry looks: one row per field, the label on the left and the value on
/// the right (`—` where the document has nothing), and a last line that says how old the
/// values are, or why the last fetch failed and how old the values shown are.
enum HTTPJSONView {
    static func view(_ entry: HTTPJSONEntry, context: WidgetViewContext) -> PanelView {
        PanelView { glyphs in node(entry, context: context, glyphs: glyphs) }
    }

    static func node(_ entry: HTTPJSONEntry, context: WidgetViewContext, glyphs: GlyphSet) -> ViewNode {
        let placeholder = context.isPlaceholder
        let status = statusLine(entry, glyphs: glyphs)
        // Rows that fit above the status line (all of them when it has the room).
        let room = max(0, context.size.rows - (status == nil ? 0 : 1))
        let shown = entry.rows.prefix(room)
        let missing = glyphs.isUnicode ? "—" : "-"
        let table = ViewNode.table(ViewNode.Table(
            columns: [ViewNode.Column(minimum: min(12, context.size.columns / 2)), ViewNode.Column(alignment: .right)],
            rows: shown.map { row in
                [ViewNode.Cell(row.label, role: placeholder ? .placeholder : .muted),
                 ViewNode.Cell(row.value ?? missing, role: placeholder ? .placeholder : (row.value == nil ? .muted : .accent),
                               bold: row.value != nil && !placeholder)]
            }))
        var children: [ViewNode] = [table, .spacer]
        if let status { children.append(status) }
        return .vstack(children)
    }

    /// "updated 5m ago", "⚠ reason · data 5m old", "fetching…"; nil for the placeholder.
    static func statusLine(_ entry: HTTPJSONEntry, glyphs: GlyphSet) -> ViewNode? {
        let separator = glyphs.isUnicode ? " · " : " - "
        if let error = entry.fetchError {
            var text = (glyphs.isUnicode ? "⚠ " : "! ") + error
            if entry.hasData, let fetchedAt = entry.fetchedAt {
                text += separator + "data \(DurationText.age(from: fetchedAt, to: entry.date)) old"
            }
            return .text(text, role: .warning)
        }
        if let fetchedAt = entry.fetchedAt, entry.hasData {
            return .text("updated \(DurationText.age(from: fetchedAt, to: entry.date)) ago", role: .muted)
        }
        if entry.isFetching { return .text("fetching" + (glyphs.isUnicode ? "…" : "..."), role: .muted) }
        return nil
    }
}
