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
    /// centred.
    static func node(_ entry: CountdownEntry, context: WidgetViewContext) -> ViewNode {
        let placeholder = context.isPlaceholder
        let other: StyleRole = placeholder ? .placeholder : .muted
        let main: StyleRole = placeholder ? .placeholder : entry.isDone ? .positive : .accent
        var lines: [ViewNode] = []
        if !entry.label.isEmpty, context.size.rows >= 2 { lines.append(.text(entry.label, role: other, alignment: .center)) }
        lines.append(.text(entry.remaining, role: main, bold: !placeholder, alignment: .center))
        if context.size.rows >= 3, !entry.target.isEmpty {
            let word = entry.isDone ? "since " : "to "
            let full = word + entry.target
            let line = full.count <= context.size.columns || entry.shortTarget.isEmpty ? full : word + entry.shortTarget
            lines.append(.text(line, role: other, alignment: .center))
        }
        return .vstack([.spacer] + lines + [.spacer])
    }
}
