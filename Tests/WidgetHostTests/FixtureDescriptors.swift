import WidgetCore
import WidgetHost
import Widgets

/// Widget kinds the config tests register: a clock and a leaderboard, shaped like the real
/// ones the host registers, as manifests in a catalogue of their own.
enum FixtureDescriptors {
    static let clock = WidgetManifest(
        kind: "clock", displayName: "Clock", description: "The time in a zone.",
        supportedFamilies: [.small, .medium], defaultFamily: .small,
        options: [
            OptionSpec(name: "timeZone", type: .timeZone, defaultValue: .string("local"), doc: "IANA time zone", example: "UTC"),
            OptionSpec(name: "seconds", type: .bool, defaultValue: .bool(false), doc: "show seconds", example: "true"),
            OptionSpec(name: "hour24", type: .bool, defaultValue: .bool(true), doc: "24-hour clock"),
            OptionSpec(name: "showDate", type: .bool, doc: "show the date"),
        ],
        pausesWithAutomaticReloads: false, usesNetwork: false)

    static let leaderboard = WidgetManifest(
        kind: "leaderboard", displayName: "Leaderboard", description: "Heroes ranked by experience.",
        supportedFamilies: [.medium, .large, .extraLarge], defaultFamily: .large,
        options: [
            OptionSpec(name: "url", type: .url(schemes: ["http", "https"]), required: true, doc: "the leaderboard's URL"),
            OptionSpec(name: "refreshSeconds", type: .seconds(1...Int.max, refreshInterval: true), defaultValue: .integer(10),
                       doc: "seconds between reloads"),
            OptionSpec(name: "session", type: .oneOf(["background", "foreground"]), defaultValue: .string("background"), doc: "how to download"),
            OptionSpec(name: "maxRows", type: .integer(1...50), doc: "rows to show"),
        ])

    static let all = [clock, leaderboard]

    /// The fixtures as a catalogue; their widgets are never built by these tests.
    static let catalog = Catalog(all.map { manifest in
        WidgetDefinition(manifest: manifest) { _ in
            TerminalWidget(manifest: manifest, makeProvider: { _ in throw OptionError("fixture") },
                           view: { _, _ in PanelView(node: .vstack([])) })
        }
    })

    /// Time zones known to the tests, so they do not depend on the machine's tz database.
    static let timeZones: @Sendable (String) -> Bool = { ["UTC", "local", "Europe/Paris"].contains($0) }

    static var validator: ConfigValidator { ConfigValidator(manifests: all, isKnownTimeZone: timeZones) }
}
