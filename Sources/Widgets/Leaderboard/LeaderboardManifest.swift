import WidgetCore

extension LeaderboardWidget {
    /// The leaderboard's kind and options.
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "Ranger Leaderboard",
        description: "The Emoji Rangers heroes, live from a leaderboard server through a background session.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .large,
        options: LeaderboardOptions.specs,
        pushSourceOption: LeaderboardOptions.name(of: \.push))

    public static let definition = WidgetDefinition(manifest: manifest, uses: [.backgroundSessions, .push]) {
        configuration(context: $0, registry: $0.leaderboardSessions)
    }
    .entryType(LeaderboardEntry.self)
}
