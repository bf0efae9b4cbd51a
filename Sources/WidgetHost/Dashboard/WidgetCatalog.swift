import FoundationEssentials
import WidgetCore
import Widgets

/// The widget kinds this host can build: each built-in widget with the description of its
/// options that the config validator checks.
public struct WidgetCatalog: Sendable {
    public struct Entry: Sendable {
        public var widget: TerminalWidget
        public var descriptor: WidgetKindDescriptor
    }

    public var entries: [Entry]

    public init(entries: [Entry]) { self.entries = entries }

    /// Every built-in widget.
    public static let builtin = WidgetCatalog(entries: [
        Entry(widget: ClockWidget.configuration, descriptor: WidgetKindDescriptor(
            kind: ClockWidget.kind, displayName: "Clock",
            summary: "The time in a time zone; wakes only when the shown time changes.",
            supportedFamilies: WidgetFamily.allCases, defaultFamily: .small,
            options: [
                OptionSpec(name: "timeZone", type: .timeZone, defaultValue: .string("local"),
                           help: "IANA zone such as Europe/Paris, UTC, or local"),
                OptionSpec(name: "seconds", type: .bool, defaultValue: .bool(false), help: "show seconds (wakes every second)"),
                OptionSpec(name: "hour24", type: .bool, defaultValue: .bool(true), help: "24-hour time; false for AM/PM"),
                OptionSpec(name: "showDate", type: .bool, defaultValue: .bool(true), help: "show the date under the time"),
            ])),
    ])

    public var descriptors: [WidgetKindDescriptor] { entries.map(\.descriptor) }

    public func entry(kind: String) -> Entry? { entries.first { $0.widget.kind == kind } }

    /// Validated config options as the scalar values providers read.
    public static func widgetOptions(_ options: [String: JSONValue]) -> WidgetOptions {
        var values: [String: WidgetOptions.Value] = [:]
        for (name, value) in options {
            switch value {
            case .string(let s): values[name] = .string(s)
            case .integer(let i): values[name] = .integer(i)
            case .number(let d): values[name] = .number(d)
            case .bool(let b): values[name] = .bool(b)
            case .object, .array, .null: break
            }
        }
        return WidgetOptions(values)
    }
}
