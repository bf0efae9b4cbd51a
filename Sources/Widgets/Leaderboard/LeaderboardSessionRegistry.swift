import FoundationEssentials
import Synchronization

/// The leaderboard sessions the host's panels use, with the URL each is configured with now.
///
/// A panel's provider registers its session as it is made and holds the `Lease` for its life
/// (as `FileWatcher.Lease` does for a watched file): a panel removed by a config reload lets
/// its session go when its provider goes, and a panel kept keeps it — the host never reads a
/// leaderboard's options to say which sessions are still in use. The events handler matches
/// identifiers against it; a restarted host resumes a session's unfinished download with the
/// URL configured *now* (the newest registration's).
public final class LeaderboardSessionRegistry: Sendable {
    /// One panel's registration; released when the holder goes.
    public final class Lease: Sendable {
        private let registry: LeaderboardSessionRegistry
        private let id: UInt64

        fileprivate init(registry: LeaderboardSessionRegistry, id: UInt64) {
            self.registry = registry
            self.id = id
        }

        deinit { registry.release(id) }
    }

    private struct State {
        var next: UInt64 = 0
        var entries: [UInt64: (session: String, url: URL)] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// Registers `session` at `url` for as long as the returned lease is held.
    public func register(session: String, url: URL) -> Lease {
        let id = state.withLock { state -> UInt64 in
            state.next += 1
            state.entries[state.next] = (session, url)
            return state.next
        }
        return Lease(registry: self, id: id)
    }

    public func contains(_ session: String) -> Bool {
        state.withLock { $0.entries.values.contains { $0.session == session } }
    }

    /// The URL configured now for `session` (the newest registration's).
    public func url(for session: String) -> URL? {
        state.withLock { state in
            state.entries.filter { $0.value.session == session }.max { $0.key < $1.key }?.value.url
        }
    }

    private func release(_ id: UInt64) {
        _ = state.withLock { $0.entries.removeValue(forKey: id) }
    }
}

extension WidgetContext {
    /// The leaderboard sessions of this context's panels: one registry shared by the
    /// `leaderboard` panels that register and the `hero` actions that read them.
    var leaderboardSessions: LeaderboardSessionRegistry { shared.object { LeaderboardSessionRegistry() } }
}
