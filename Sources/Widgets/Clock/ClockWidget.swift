import TerminalUI
import WidgetCore

/// The `clock` widget: the time in a zone, with or without seconds, 12- or 24-hour, and an
/// optional date line.
///
/// Options: `ClockOptions`.
public enum ClockWidget {
    public static let kind = "clock"

    /// The clock reading zones from the tz database at `context.zoneinfo` (the host's
    /// `FileRoots.zoneinfo`), the local one from its `TZ`.
    public static func configuration(context: WidgetContext = .none) -> TerminalWidget {
        let zoneinfo = context.zoneinfo
        return TerminalWidget(
        manifest: manifest,
        makeProvider: { options in
            let options = try ClockOptions(options)
            let zone: ZoneInfo
            if options.timeZone != "local" {
                zone = try ZoneInfo.load(options.timeZone, directory: zoneinfo)
            } else {
                zone = ZoneInfo.local(environment: context.environment, directory: zoneinfo)
            }
            let style = ClockStyle(seconds: options.seconds, hour24: options.hour24, showDate: options.showDate)
            return AnyTimelineProvider(ClockProvider(zone: zone, style: style, now: context.now))
        },
        view: PanelView.typed(view)
        )
    }

    static func view(_ entry: ClockEntry, context: WidgetViewContext) -> ViewNode {
        node(entry, context: context)
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
