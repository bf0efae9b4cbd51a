import WidgetCore

extension HeroWidget {
    /// The hero's kind and options. It reads the boards the leaderboard's session fetched, so
    /// it pauses and counts like a network widget.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Hero",
        description: "One Emoji Ranger: level, exp, health and time to full health, from the leaderboard's boards.",
        supportedFamilies: [.small, .medium], defaultFamily: .small,
        options: [
            OptionSpec(name: "name", type: .string, required: true, doc: "the hero's name", example: "Spouty"),
            OptionSpec(name: "session", type: .string, defaultValue: .string(LeaderboardWidget.defaultSession),
                       doc: "the leaderboard session whose boards to read", example: "leaderboard"),
        ],
        titleOption: "name",
        actions: [WidgetAction(key: "+", title: "heal the hero")])

    public static let definition = WidgetDefinition(manifest: manifest) {
        configuration(services: $0.services).action("+") { [services = $0.services, sessions = $0.leaderboardSessions] context in
            try await heal(context, services: services, sessions: sessions)
        }
    }
}
