import FoundationEssentials
import Synchronization

/// The leaderboard sessions the host's panels use, with the URL each is configured with now.
///
/// Fills as providers are made; the events handler matches identifiers against it, and a
/// restarted host resumes a session's unfinished download with the URL configured *now*.
public final class LeaderboardSessionRegistry: Sendable {
    private let urls = Mutex<[String: URL]>([:])

    public init() {}

    public func register(session: String, url: URL) {
        urls.withLock { $0[session] = url }
    }

    public func contains(_ session: String) -> Bool {
        urls.withLock { $0[session] != nil }
    }

    /// Forgets every session not in `sessions` (after a config reload: the ones it still uses).
    public func retain(_ sessions: Set<String>) {
        urls.withLock { urls in urls = urls.filter { sessions.contains($0.key) } }
    }

    /// The URL configured now for `session`.
    public func url(for session: String) -> URL? {
        urls.withLock { $0[session] }
    }
}
