import WidgetCore
import WidgetHost

/// Widget kinds the config tests register: a clock and a leaderboard, shaped like the real
/// ones the host will register.
enum FixtureDescriptors {
    static let clock = WidgetKindDescriptor(
        kind: "clock", displayName: "Clock", summary: "The time in a zone.",
        supportedFamilies: [.small, .medium], defaultFamily: .small,
        options: [
            OptionSpec(name: "timeZone", type: .timeZone, defaultValue: .string("local"), help: "IANA time zone"),
            OptionSpec(name: "seconds", type: .bool, defaultValue: .bool(false), help: "show seconds"),
            OptionSpec(name: "hour24", type: .bool, defaultValue: .bool(true), help: "24-hour clock"),
            OptionSpec(name: "showDate", type: .bool, help: "show the date"),
        ])

    static let leaderboard = WidgetKindDescriptor(
        kind: "leaderboard", displayName: "Leaderboard", summary: "Heroes ranked by experience.",
        supportedFamilies: [.medium, .large, .extraLarge], defaultFamily: .large,
        options: [
            OptionSpec(name: "url", type: .url(schemes: ["http", "https"]), required: true, help: "the leaderboard's URL"),
            OptionSpec(name: "refreshSeconds", type: .integer(1...Int.max), defaultValue: .integer(10), help: "seconds between reloads"),
            OptionSpec(name: "session", type: .oneOf(["background", "foreground"]), defaultValue: .string("background"), help: "how to download"),
            OptionSpec(name: "maxRows", type: .integer(1...50), help: "rows to show"),
        ])

    static let all = [clock, leaderboard]

    /// Time zones known to the tests, so they do not depend on the machine's tz database.
    static let timeZones: @Sendable (String) -> Bool = { ["UTC", "local", "Europe/Paris"].contains($0) }

    static var validator: ConfigValidator { ConfigValidator(descriptors: all, isKnownTimeZone: timeZones) }
}
