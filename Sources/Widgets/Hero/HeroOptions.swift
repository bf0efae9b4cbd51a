import WidgetCore

/// The hero's options, declared once: the manifest's entries and what its provider and its
/// `+` action read.
public struct HeroOptions: OptionSchema, Equatable {
    /// The hero's name (required).
    public var name = ""
    public var session = LeaderboardWidget.defaultSession

    public init() {}

    public static let fields: [OptionField<Self>] = [
        OptionField(\.name, "name", .string, required: true, doc: "the hero's name", example: "Spouty",
                    dynamic: true),
        OptionField(\.session, "session", .string, doc: "the leaderboard session whose boards to read", example: "leaderboard"),
    ]
}
