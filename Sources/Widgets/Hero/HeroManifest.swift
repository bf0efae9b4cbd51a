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

    /// `+` POSTs through the host's transport, to the server of the leaderboard panel that
    /// fetches the hero's session (the registry the leaderboard's panels share).
    public static let definition = WidgetDefinition(manifest: manifest, uses: [.network]) { context in
        configuration(context: context).action("+") { [sessions = context.leaderboardSessions] action in
            try await heal(action, context: context, sessions: sessions)
        }
    }
    .entryType(HeroEntry.self)
}
