import JSONTree
import FoundationEssentials
import BackgroundSessions
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

    /// Every built-in widget, bound to the host's services (sessions, state, center);
    /// `registry` collects the leaderboard sessions the panels use.
    public static func builtin(services: WidgetServices = .none,
                               registry: LeaderboardSessionRegistry = LeaderboardSessionRegistry()) -> WidgetCatalog {
        let widgets = [
            ClockWidget.configuration,
            LeaderboardWidget.configuration(services: services, registry: registry),
            HeroWidget.configuration(services: services),
        ]
        return WidgetCatalog(entries: widgets.compactMap { widget in
            descriptors.first { $0.kind == widget.kind }.map { Entry(widget: widget, descriptor: $0) }
        })
    }

    /// The built-in widgets without sessions or state (validation, previews, snapshots of
    /// widgets that need no network).
    public static let builtin = builtin()

    /// What each built-in kind accepts in a config.
    public static let descriptors: [WidgetKindDescriptor] = [
        WidgetKindDescriptor(
            kind: ClockWidget.kind, displayName: "Clock",
            summary: "The time in a time zone; wakes only when the shown time changes.",
            supportedFamilies: WidgetFamily.allCases, defaultFamily: .small,
            options: [
                OptionSpec(name: "timeZone", type: .timeZone, defaultValue: .string("local"),
                           help: "IANA zone such as Europe/Paris, UTC, or local"),
                OptionSpec(name: "seconds", type: .bool, defaultValue: .bool(false), help: "show seconds (wakes every second)"),
                OptionSpec(name: "hour24", type: .bool, defaultValue: .bool(true), help: "24-hour time; false for AM/PM"),
                OptionSpec(name: "showDate", type: .bool, defaultValue: .bool(true), help: "show the date under the time"),
            ],
            titleOption: "timeZone"),
        WidgetKindDescriptor(
            kind: LeaderboardWidget.kind, displayName: "Ranger Leaderboard",
            summary: "The Emoji Rangers heroes, live from a leaderboard server through a background session.",
            supportedFamilies: WidgetFamily.allCases, defaultFamily: .large,
            options: [
                OptionSpec(name: "url", type: .url(schemes: ["http", "https"]), required: true,
                           help: "the server's leaderboard, e.g. http://127.0.0.1:8787/leaderboard"),
                OptionSpec(name: "refreshSeconds", type: .integer(1...86_400), defaultValue: .integer(10),
                           help: "seconds between fetches (raised to minimumReloadSeconds)"),
                OptionSpec(name: "session", type: .string, defaultValue: .string(LeaderboardWidget.defaultSession),
                           help: "background session identifier (letters, digits, . _ -)"),
                OptionSpec(name: "maxRows", type: .integer(1...50), defaultValue: .integer(10), help: "heroes shown at most"),
                OptionSpec(name: "push", type: .url(schemes: ["http", "https"]),
                           help: "the server's event stream, e.g. http://127.0.0.1:8787/events: each change fetches at once"),
            ]),
        WidgetKindDescriptor(
            kind: HeroWidget.kind, displayName: "Hero",
            summary: "One Emoji Ranger: level, exp, health and time to full health, from the leaderboard's boards.",
            supportedFamilies: [.small, .medium], defaultFamily: .small,
            options: [
                OptionSpec(name: "name", type: .string, required: true, help: "the hero's name, e.g. Spouty"),
                OptionSpec(name: "session", type: .string, defaultValue: .string(LeaderboardWidget.defaultSession),
                           help: "the leaderboard session whose boards to read"),
            ],
            titleOption: "name"),
    ]

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
