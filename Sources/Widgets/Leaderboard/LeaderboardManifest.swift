import WidgetCore

extension LeaderboardWidget {
    /// The leaderboard's kind and options.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Ranger Leaderboard",
        description: "The Emoji Rangers heroes, live from a leaderboard server through a background session.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .large,
        options: [
            OptionSpec(name: "url", type: .url(schemes: ["http", "https"]), required: true,
                       doc: "the server's leaderboard",
                       example: "http://127.0.0.1:8787/leaderboard"),
            OptionSpec(name: "refreshSeconds", type: .seconds(1...86_400, refreshInterval: true), defaultValue: .integer(10),
                       doc: "seconds between fetches", example: "30"),
            OptionSpec(name: "session", type: .string, defaultValue: .string(defaultSession),
                       doc: "background session identifier (letters, digits, . _ -)", example: "leaderboard"),
            OptionSpec(name: "maxRows", type: .integer(1...50), defaultValue: .integer(10), doc: "heroes shown at most", example: "6"),
            OptionSpec(name: "push", type: .url(schemes: ["http", "https"]),
                       doc: "server-sent events: a change shows at once",
                       example: "http://127.0.0.1:8787/events"),
        ],
        pushSourceOption: "push")

    public static let definition = WidgetDefinition(manifest: manifest) {
        configuration(services: $0.services, registry: $0.leaderboardSessions)
    }
}
