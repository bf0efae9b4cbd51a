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
        // The form's zone picker: the zones of the same database.
        .dynamicOptions { query in TimeZoneNames.items(query, directory: zoneinfo) }
    }

    static func view(_ entry: ClockEntry, context: WidgetViewContext) -> ViewNode {
        node(entry, context: context)
    }

    /// The clock as a view description: the time, then the date (from 3 rows) and the zone
    /// (from 4 rows). When the panel has room the time is drawn large (`BigText`, as wide and
    /// tall as fits, its AM/PM under it); the groups are spread down the panel so no blank
    /// band is left above or below them (DESIGN.md §9).
    static func node(_ entry: ClockEntry, context: WidgetViewContext) -> ViewNode {
        let placeholder = context.isPlaceholder
        let other: StyleRole = placeholder ? .placeholder : .muted
        let (columns, rows) = (context.size.columns, context.size.rows)
        var details: [ViewNode] = []
        if rows >= 3, !entry.dateLine.isEmpty { details.append(.text(entry.dateLine, role: other, alignment: .center)) }
        if rows >= 4 { details.append(.text(entry.zone, role: other, alignment: .center)) }
        // "2:05 PM": the digits large, "PM" a line of its own.
        let parts = entry.time.split(separator: " ", maxSplits: 1).map(String.init)
        var suffix: [ViewNode] = parts.count > 1 ? [.text(parts[1], role: .accent, bold: true, alignment: .center)] : []
        // With seconds, the hours and minutes are large and the seconds a small ":37" under
        // them: a tick then changes two cells, not a large digit (bench 3b: bytes per tick).
        var digits = parts.first
        if let time = digits, case let fields = time.split(separator: ":"), fields.count == 3 {
            digits = fields[0] + ":" + fields[1]
            suffix.insert(.text(":" + fields[2], role: .accent, bold: true, alignment: .center), at: 0)
        }
        if !placeholder, let digits,
           let scale = BigText.scales(digits, columns: columns - 2, rows: rows - details.count - suffix.count - 2),
           let big = BigText.rows(digits, scaleX: scale.x, scaleY: scale.y, role: .accent) {
            // The face is what the accented mode tints.
            return .spread([big.map { $0.accentable() }, suffix.map { $0.accentable() } + details], rows: rows)
        }
        let time = ViewNode.text(entry.time, role: placeholder ? .placeholder : .accent, bold: !placeholder, alignment: .center)
            .accentable(!placeholder)
        return .spread([[time]] + details.map { [$0] }, rows: rows)
    }
}
