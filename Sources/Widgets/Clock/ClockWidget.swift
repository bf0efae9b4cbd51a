import FoundationEssentials
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
    ///
    /// The time and the date are clock faces (`DateText.clock`) in the entry's offset: the host
    /// draws them at each frame's time, so one entry lasts until the offset changes.
    static func node(_ entry: ClockEntry, context: WidgetViewContext) -> ViewNode {
        let placeholder = context.isPlaceholder
        let other: StyleRole = placeholder ? .placeholder : .muted
        let (columns, rows) = (context.size.columns, context.size.rows)
        let face = entry.utcOffset.flatMap { placeholder ? nil : Face(entry.time, utcOffset: $0, date: entry.date) }
        var details: [ViewNode] = []
        if rows >= 3, !entry.dateLine.isEmpty {
            details.append(face.map { .date(ViewNode.DateNode(.clock([.date], utcOffset: $0.utcOffset, date: entry.date), role: other, alignment: .center)) }
                ?? .text(entry.dateLine, role: other, alignment: .center))
        }
        if rows >= 4 { details.append(.text(entry.zone, role: other, alignment: .center)) }
        // "2:05 PM": the digits large, "PM" a line of its own.
        let parts = entry.time.split(separator: " ", maxSplits: 1).map(String.init)
        var suffix: [ViewNode] = parts.count > 1
            ? [face.map { $0.node([.meridiem], bold: true) } ?? .text(parts[1], role: .accent, bold: true, alignment: .center)] : []
        // With seconds, the hours and minutes are large and the seconds a small ":37" under
        // them: a tick then changes two cells, not a large digit (bench 3b: bytes per tick).
        var digits = parts.first
        if let time = digits, case let fields = time.split(separator: ":"), fields.count == 3 {
            digits = fields[0] + ":" + fields[1]
            suffix.insert(face.map { $0.node([.literal(":"), .second], bold: true) }
                ?? .text(":" + fields[2], role: .accent, bold: true, alignment: .center), at: 0)
        }
        if !placeholder, let digits,
           let scale = BigText.scales(digits, columns: columns - 2, rows: rows - details.count - suffix.count - 2) {
            // Large digits: a face's rows follow the time; the entry's own text otherwise.
            let big = face.map { ViewNode.bigDate(.clock($0.hourMinute, utcOffset: $0.utcOffset, date: entry.date), scaleX: scale.x, scaleY: scale.y, role: .accent) }
                ?? BigText.rows(digits, scaleX: scale.x, scaleY: scale.y, role: .accent)
            // The face is what the accented mode tints.
            if let big { return .spread([big.map { $0.accentable() }, suffix.map { $0.accentable() } + details], rows: rows) }
        }
        let time = (face.map { $0.node($0.fields, bold: true) }
            ?? ViewNode.text(entry.time, role: placeholder ? .placeholder : .accent, bold: !placeholder, alignment: .center))
            .accentable(!placeholder)
        return .spread([[time]] + details.map { [$0] }, rows: rows)
    }

    /// The shape of an entry's time ("14:05", "2:05:09 PM") as clock face fields.
    struct Face {
        var utcOffset: Int
        var date: Date
        var hour24: Bool
        var seconds: Bool

        init?(_ time: String, utcOffset: Int, date: Date) {
            self.utcOffset = utcOffset
            self.date = date
            hour24 = !time.contains(" ")
            seconds = time.split(separator: " ").first?.split(separator: ":").count == 3
        }

        var hourMinute: [DateText.Field] { [hour24 ? .hour24 : .hour12, .literal(":"), .minute] }

        /// The whole time as `ClockEntry.time` writes it.
        var fields: [DateText.Field] {
            hourMinute + (seconds ? [.literal(":"), .second] : []) + (hour24 ? [] : [.literal(" "), .meridiem])
        }

        func node(_ fields: [DateText.Field], bold: Bool) -> ViewNode {
            .date(ViewNode.DateNode(.clock(fields, utcOffset: utcOffset, date: date), role: .accent, bold: bold, alignment: .center))
        }
    }
}
