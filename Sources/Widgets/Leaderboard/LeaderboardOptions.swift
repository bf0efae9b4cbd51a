import WidgetCore

/// The leaderboard's options, declared once: the manifest's entries and what its provider reads.
public struct LeaderboardOptions: OptionSchema, Equatable {
    /// The server's leaderboard (required).
    public var url = ""
    public var refreshSeconds = 10
    public var session = LeaderboardWidget.defaultSession
    public var maxRows = 10
    public var push: String?

    public init() {}

    public static let fields: [OptionField<Self>] = [
        OptionField(\.url, "url", .url(schemes: ["http", "https"]), required: true,
                    doc: "the server's leaderboard", example: "http://127.0.0.1:8787/leaderboard"),
        OptionField(\.refreshSeconds, "refreshSeconds", .seconds(1...86_400, refreshInterval: true),
                    doc: "seconds between fetches", example: "30"),
        OptionField(\.session, "session", .string,
                    doc: "background session identifier (letters, digits, . _ -)", example: "leaderboard"),
        OptionField(\.maxRows, "maxRows", .integer(1...50), doc: "heroes shown at most", example: "6"),
        OptionField(\.push, "push", .url(schemes: ["http", "https"]),
                    doc: "server-sent events: a change shows at once", example: "http://127.0.0.1:8787/events"),
    ]
}
