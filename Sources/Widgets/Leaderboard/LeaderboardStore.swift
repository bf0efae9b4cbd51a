import BackgroundSessions
import FoundationEssentials

/// Keeps each leaderboard session's state (last board, the one before, last error) in the
/// leaderboard's container, `board-<session>.json`, written atomically.
///
/// Read by the leaderboard's provider and by the hero widget; written by the session delegate.
public struct LeaderboardStore: Sendable {
    public static let kind = "leaderboard"
    public let container: WidgetContainer?

    public init(container: WidgetContainer?) {
        self.container = container
    }

    public init(services: WidgetServices) {
        container = services.container(kind: Self.kind)
    }

    static func fileName(session: String) -> String { "board-\(session).json" }

    /// The saved state of `session`; an empty state when none (or unreadable).
    public func load(session: String) -> LeaderboardState {
        guard let container, let bytes = try? container.read(Self.fileName(session: session)),
              let state = try? JSONDecoder().decode(LeaderboardState.self, from: Data(bytes)) else { return LeaderboardState() }
        return state
    }

    /// Saves `state` for `session`; false when there is no container or the write failed.
    @discardableResult
    public func save(_ state: LeaderboardState, session: String) -> Bool {
        guard let container, let data = try? JSONEncoder().encode(state) else { return false }
        do {
            try container.write([UInt8](data), to: Self.fileName(session: session))
            return true
        } catch {
            return false
        }
    }

    /// Applies `change` to the saved state of `session` and saves it.
    public func update(session: String, _ change: (inout LeaderboardState) -> Void) {
        var state = load(session: session)
        change(&state)
        save(state, session: session)
    }
}
