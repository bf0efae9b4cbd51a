import FoundationEssentials
import WidgetCore

/// One moment of the leaderboard panel: the last board with each hero's health projected to
/// `date`, the board before it (for ▲/▼), and how the last fetch went.
public struct LeaderboardEntry: TimelineEntry, Equatable {
    public var date: Date
    /// The board, heroes' health as of `date`; nil until the first board arrives.
    public var board: LeaderboardBoard?
    /// The board before it, for exp changes and rank movement.
    public var previous: LeaderboardBoard?
    /// When the board was received.
    public var fetchedAt: Date?
    /// Why the last fetch failed, when it did (the board shown is then older).
    public var fetchError: String?
    /// Heroes the last board had that could not be read.
    public var skipped: Int
    /// True while a fetch is running.
    public var isFetching: Bool
    public var maxRows: Int

    public init(date: Date, board: LeaderboardBoard?, previous: LeaderboardBoard? = nil, fetchedAt: Date? = nil,
                fetchError: String? = nil, skipped: Int = 0, isFetching: Bool = false, maxRows: Int = 10) {
        self.date = date
        self.board = board
        self.previous = previous
        self.fetchedAt = fetchedAt
        self.fetchError = fetchError
        self.skipped = skipped
        self.isFetching = isFetching
        self.maxRows = maxRows
    }

    /// The entries from `start` until `end`, one per minute boundary (at least one, at
    /// `start`), each with health recovered for the time since the board was fetched — the
    /// Emoji Rangers pattern of a timeline animating between fetches.
    public static func timeline(_ state: LeaderboardState, from start: Date, until end: Date, maxRows: Int) -> [LeaderboardEntry] {
        var dates = [start]
        var next = (start.timeIntervalSince1970 / 60).rounded(.down) * 60 + 60
        while next < end.timeIntervalSince1970, dates.count < 120 {
            dates.append(Date(timeIntervalSince1970: next))
            next += 60
        }
        return dates.map { date in
            var board = state.board
            if let fetchedAt = state.fetchedAt, var projected = board {
                let elapsed = date.timeIntervalSince(fetchedAt)
                projected.heroes = projected.heroes.map { hero in
                    var hero = hero
                    hero.health = hero.health(after: elapsed)
                    return hero
                }
                board = projected
            }
            return LeaderboardEntry(date: date, board: board, previous: state.previous, fetchedAt: state.fetchedAt,
                                    fetchError: state.lastError, skipped: state.skipped, isFetching: state.isFetching,
                                    maxRows: maxRows)
        }
    }
}

/// What the leaderboard widget keeps in its container between fetches (and restarts).
public struct LeaderboardState: Sendable, Equatable, Codable {
    public var board: LeaderboardBoard?
    public var previous: LeaderboardBoard?
    public var fetchedAt: Date?
    public var skipped: Int
    public var lastError: String?
    public var lastAttempt: Date?
    /// The server asked not to be asked again before this (Retry-After).
    public var retryAfterUntil: Date?
    /// The last body the server sent could not be read: a 304 for it confirms nothing.
    public var lastBodyRejected = false
    /// Not stored: whether a fetch is in flight now.
    public var isFetching: Bool

    public init(board: LeaderboardBoard? = nil, previous: LeaderboardBoard? = nil, fetchedAt: Date? = nil, skipped: Int = 0,
                lastError: String? = nil, lastAttempt: Date? = nil, isFetching: Bool = false) {
        self.board = board
        self.previous = previous
        self.fetchedAt = fetchedAt
        self.skipped = skipped
        self.lastError = lastError
        self.lastAttempt = lastAttempt
        self.isFetching = isFetching
    }

    enum CodingKeys: String, CodingKey {
        case board, previous, fetchedAt, skipped, lastError, lastAttempt, retryAfterUntil, lastBodyRejected
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        board = try c.decodeIfPresent(LeaderboardBoard.self, forKey: .board)
        previous = try c.decodeIfPresent(LeaderboardBoard.self, forKey: .previous)
        fetchedAt = try c.decodeIfPresent(Date.self, forKey: .fetchedAt)
        skipped = try c.decodeIfPresent(Int.self, forKey: .skipped) ?? 0
        lastError = try c.decodeIfPresent(String.self, forKey: .lastError)
        lastAttempt = try c.decodeIfPresent(Date.self, forKey: .lastAttempt)
        retryAfterUntil = try c.decodeIfPresent(Date.self, forKey: .retryAfterUntil)
        lastBodyRejected = try c.decodeIfPresent(Bool.self, forKey: .lastBodyRejected) ?? false
        isFetching = false
    }

    /// A new board arrived: the current one becomes the previous, the error clears.
    public mutating func received(_ result: LeaderboardDecoder.Result, at date: Date) {
        if let board, board != result.board { previous = board }
        board = result.board
        fetchedAt = date
        skipped = result.skipped
        lastError = nil
        lastAttempt = date
        retryAfterUntil = nil
        lastBodyRejected = false
    }

    /// The server's body could not be read: the board stays, and a later "not modified" for
    /// that same body confirms nothing.
    public mutating func rejected(_ reason: String, at date: Date) {
        failed(reason, at: date)
        lastBodyRejected = true
    }

    /// The server said nothing changed (304): the board is fresh as of `date` — unless what
    /// did not change is a body that could not be read, whose error then stays.
    public mutating func confirmed(at date: Date) {
        guard !lastBodyRejected else {
            lastAttempt = date
            return
        }
        fetchedAt = board == nil ? nil : date
        lastError = nil
        lastAttempt = date
        retryAfterUntil = nil
    }

    /// A fetch failed: the board stays, the reason is kept for the panel.
    public mutating func failed(_ reason: String, at date: Date) {
        lastError = reason
        lastAttempt = date
        retryAfterUntil = nil
    }
}
