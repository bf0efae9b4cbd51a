import FoundationEssentials

extension LeaderboardBoard {
    /// The Emoji Rangers as the bundled server seeds them (DESIGN.md §4): what a preview shows
    /// (`snapshot` with `isPreview`, WidgetKit's gallery), whatever the panel's server has sent
    /// or not. `updated` is the moment the sample is shown for.
    public static func sample(updated: Date) -> LeaderboardBoard {
        LeaderboardBoard(updated: updated, heroes: [
            LeaderboardHero(name: "Power Panda", avatar: "🐼", heroType: "Bear", level: 3, exp: 600, health: 0.14,
                            healthRecoveryRatePerHour: 0.25),
            LeaderboardHero(name: "Egghead", avatar: "🦄", heroType: "Unicorn", level: 5, exp: 1000, health: 0.67,
                            healthRecoveryRatePerHour: 0.22),
            LeaderboardHero(name: "Spouty", avatar: "🐳", heroType: "Spouter", level: 50, exp: 20000, health: 0.99,
                            healthRecoveryRatePerHour: 0.59),
            LeaderboardHero(name: "Mr. Spook", avatar: "💀", heroType: "Ghost", level: 13, exp: 2640, health: 0.14,
                            healthRecoveryRatePerHour: 0.25),
            LeaderboardHero(name: "Cake", avatar: "🎂", heroType: "Birthday", level: 15, exp: 3121, health: 0.67,
                            healthRecoveryRatePerHour: 0.22),
            LeaderboardHero(name: "Octo", avatar: "🐙", heroType: "Octopus", level: 43, exp: 86463, health: 0.83,
                            healthRecoveryRatePerHour: 0.29),
        ])
    }
}
