import FoundationEssentials
import TerminalUI
import WidgetCore

/// The `countdown` widget: the time left until `to`, under an optional `label`; "done" after.
///
/// Options (`CountdownOptions`): `to` (required; ISO 8601 with an offset, or a local
/// `2026-12-31T23:59`), `label`.
public enum CountdownWidget {
    public static let kind = "countdown"

    /// The countdown reading the local zone (`TZ`) from the tz database at `context.zoneinfo`.
    public static func configuration(context: WidgetContext = .none) -> TerminalWidget {
        TerminalWidget(
            manifest: manifest,
            makeProvider: { options in
                let options = try CountdownOptions(options)
                guard let target = CountdownTarget.parse(options.to) else {
                    throw OptionError("to: expected an ISO 8601 date and time")
                }
                let zone = ZoneInfo.local(environment: context.environment, directory: context.zoneinfo)
                return AnyTimelineProvider(CountdownProvider(target: target.date(in: zone), label: options.label ?? "",
                                                             zone: zone, now: context.now))
            },
            view: PanelView.typed(view)
        )
    }

    static func view(_ entry: CountdownEntry, context: WidgetViewContext) -> ViewNode {
        node(entry, context: context)
    }

    /// The label, the time left (bold) and, from 3 rows, the target date (shorter when narrow),
    /// spread down the panel; the time left drawn large (`BigText`) when the panel has room.
    static func node(_ entry: CountdownEntry, context: WidgetViewContext) -> ViewNode {
        let placeholder = context.isPlaceholder
        let other: StyleRole = placeholder ? .placeholder : .muted
        let main: StyleRole = placeholder ? .placeholder : entry.isDone ? .positive : .accent
        let (columns, rows) = (context.size.columns, context.size.rows)
        var label: [ViewNode] = []
        if !entry.label.isEmpty, rows >= 2 { label.append(.text(entry.label, role: other, alignment: .center)) }
        var target: [ViewNode] = []
        if rows >= 3, !entry.target.isEmpty {
            let word = entry.isDone ? "since " : "to "
            let full = word + entry.target
            let line = full.count <= columns || entry.shortTarget.isEmpty ? full : word + entry.shortTarget
            target.append(.text(line, role: other, alignment: .center))
        }
        // What is left, at each frame's time (text that updates itself), when the entry knows the end.
        let left = entry.end.flatMap { end in placeholder || entry.isDone ? nil : DateText.countingDown(to: end, shownAt: entry.date) }
        if !placeholder, let scale = BigText.scales(entry.remaining, columns: columns - 2, rows: rows - label.count - target.count - 2),
           let big = left.map({ ViewNode.bigDate($0, scaleX: scale.x, scaleY: scale.y, role: main) })
               ?? BigText.rows(entry.remaining, scaleX: scale.x, scaleY: scale.y, role: main) {
            return .spread([label, big, target], rows: rows)
        }
        let small = left.map { ViewNode.date(ViewNode.DateNode($0, role: main, bold: true, alignment: .center)) }
            ?? .text(entry.remaining, role: main, bold: !placeholder, alignment: .center)
        return .spread([label, [small], target], rows: rows)
    }
}
