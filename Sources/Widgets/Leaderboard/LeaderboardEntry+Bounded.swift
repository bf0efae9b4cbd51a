import WidgetCore

/// A leaderboard entry read from a message log: its boards as a damaged state file's are
/// (`LeaderboardDecoder.sanitized`), its row count and skipped heroes in range (a negative
/// `maxRows` would trap in the view's `prefix`).
extension LeaderboardEntry: BoundedEntry {
    public func bounded() -> LeaderboardEntry {
        var entry = self
        entry.board = board.map(LeaderboardDecoder.sanitized)
        entry.previous = previous.map(LeaderboardDecoder.sanitized)
        entry.maxRows = min(max(1, maxRows), LeaderboardDecoder.maximumHeroes)
        entry.skipped = min(max(0, skipped), 1_000_000)
        return entry
    }
}
