import WidgetCore

extension HeroWidget {
    /// The hero's kind and options. It reads the boards the leaderboard's session fetched, so
    /// it pauses and counts like a network widget.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Hero",
        description: "One Emoji Ranger: level, exp, health and time to full health, from the leaderboard's boards.",
        supportedFamilies: [.small, .medium], defaultFamily: .small,
        options: HeroOptions.specs,
        titleOption: HeroOptions.name(of: \.name),
        actions: [WidgetAction(key: "+", title: "heal the hero")])

    public static let definition = WidgetDefinition(manifest: manifest) {
        configuration(services: $0.services).action("+") { [services = $0.services, sessions = $0.leaderboardSessions] context in
            try await heal(context, services: services, sessions: sessions)
        }
    }
}
