import TerminalUI
import WidgetCore

/// The `clock` widget: the time in a zone, with or without seconds, 12- or 24-hour, and an
/// optional date line.
///
/// Options: `timeZone` (tz name, default the system's), `seconds` (default false), `hour24`
/// (default true), `showDate` (default true).
public enum ClockWidget {
    public static let kind = "clock"

    /// The clock reading zones from the tz database at `zoneinfo` (the host's `FileRoots.zoneinfo`).
    public static func configuration(zoneinfo: String = ZoneInfo.defaultDirectory) -> TerminalWidget {
        TerminalWidget(
        manifest: manifest,
        makeProvider: { options, environment in
            let zone: ZoneInfo
            if let name = options.string("timeZone"), name != "local" {
                zone = try ZoneInfo.load(name, directory: zoneinfo)
            } else {
                zone = ZoneInfo.local(environment: environment.variables, directory: zoneinfo)
            }
            let style = ClockStyle(
                seconds: options.bool("seconds") ?? false,
                hour24: options.bool("hour24") ?? true,
                showDate: options.bool("showDate") ?? true
            )
            return AnyTimelineProvider(ClockProvider(zone: zone, style: style, now: environment.now))
        },
        view: PanelView.typed(view)
        )
    }

    static func view(_ entry: ClockEntry, context: WidgetViewContext) -> PanelView {
        PanelView(node: node(entry, context: context))
    }

    /// The clock as a view description: the time, then the date (from 3 rows) and the zone
    /// (from 4 rows), centred.
    static func node(_ entry: ClockEntry, context: WidgetViewContext) -> ViewNode {
        let placeholder = context.isPlaceholder
        let other: StyleRole = placeholder ? .placeholder : .muted
        var lines: [ViewNode] = [.text(entry.time, role: placeholder ? .placeholder : .accent, bold: !placeholder, alignment: .center)]
        if context.size.rows >= 3, !entry.dateLine.isEmpty { lines.append(.text(entry.dateLine, role: other, alignment: .center)) }
        if context.size.rows >= 4 { lines.append(.text(entry.zone, role: other, alignment: .center)) }
        return .vstack([.spacer] + lines + [.spacer])
    }
}
