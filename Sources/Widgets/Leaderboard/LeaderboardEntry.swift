import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// One moment of the leaderboard panel: the last board with each hero's health projected to
/// `date`, the board before it (for ▲/▼), and how the last fetch went.
public struct LeaderboardEntry: TimelineEntry, Equatable, Codable {
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
    /// With a push source: whether its stream is up (the footer says `live` or `polling`).
    public var push: LeaderboardPushMode?
    public var maxRows: Int
    /// When the next fetch is held to (a backoff, a Retry-After) while `fetchError` says
    /// "retry in Ns": the footer then counts the seconds down at each frame's time.
    public var retryAt: Date?

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

    /// The entries from `start` until `end` at `ProjectionDates` (at least one, at `start`; by
    /// the minute for the first hour, coarser after), each with health recovered for the time
    /// since the board was fetched — the Emoji Rangers pattern of a timeline animating between
    /// fetches, reaching the next one.
    ///
    /// With `retryAt` (the next fetch waits for a backoff or the server's Retry-After) each
    /// entry's error ends with "· retry in Ns", counted from that entry's date. A state that
    /// could not be saved says so first.
    /// Entries in one timeline at most: a day's refresh fits (`ProjectionDates`); a longer
    /// wait reloads when they run out.
    public static let maximumEntries = ProjectionDates.maximumEntries

    public static func timeline(_ state: LeaderboardState, from start: Date, until end: Date, maxRows: Int,
                                retryAt: Date? = nil) -> [LeaderboardEntry] {
        let dates = ProjectionDates.dates(from: start, until: end, maximum: maximumEntries)
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
            var error = state.lastError
            if let reason = error, let retryAt, retryAt > date {
                error = "\(reason) · retry in \(DurationText.wholeSeconds(retryAt.timeIntervalSince(date)))s"
            }
            if let saveError = state.saveError {
                error = [saveError, error].compactMap { $0 }.joined(separator: " · ")
            }
            var entry = LeaderboardEntry(date: date, board: board, previous: state.previous, fetchedAt: state.fetchedAt,
                                         fetchError: error, skipped: state.skipped, isFetching: state.isFetching,
                                         maxRows: maxRows)
            entry.push = state.push
            if let retryAt, retryAt > date, state.lastError != nil { entry.retryAt = retryAt }
            return entry
        }
    }
}

/// How a leaderboard with a push source learns of changes now.
public enum LeaderboardPushMode: String, Sendable, Equatable, Codable {
    /// The event stream is up: each change fetches the board; polling is only a safety net.
    case live
    /// The stream is down (reconnecting): the panel polls every `refreshSeconds`.
    case polling
}

/// What the leaderboard widget keeps in its container between fetches (and restarts).
///
/// Every field may have been read back from a file, so none is trusted blindly: the store
/// sanitises the boards, and waits are bounded where they are used (`LeaderboardProvider`).
public struct LeaderboardState: Sendable, Equatable, Codable {
    /// The longest server's Retry-After kept: the transport's cap on its own waits
    /// (`RetryPolicy.maxRetryAfter`). A longer one must not lock a panel out for days.
    public static let maximumRetryAfter: TimeInterval = FetchSchedule.maximumRetryAfter
    /// The longest wait after failures in a row (the backoff doubles up to this).
    public static let maximumBackoff: TimeInterval = FetchSchedule.maximumBackoff

    public var board: LeaderboardBoard?
    public var previous: LeaderboardBoard?
    public var skipped: Int
    /// How the fetches went (shared with `http-json`); stored flat, its fields next to the boards.
    public var fetch = FetchRecord()
    public var fetchedAt: Date? { get { fetch.fetchedAt } set { fetch.fetchedAt = newValue } }
    public var lastError: String? { get { fetch.lastError } set { fetch.lastError = newValue } }
    public var lastAttempt: Date? { get { fetch.lastAttempt } set { fetch.lastAttempt = newValue } }
    /// The server asked not to be asked again before this (Retry-After), capped at
    /// `maximumRetryAfter` after it was asked.
    public var retryAfterUntil: Date? { get { fetch.retryAfterUntil } set { fetch.retryAfterUntil = newValue } }
    /// The last body the server sent could not be read: a 304 for it confirms nothing.
    public var lastBodyRejected: Bool { get { fetch.lastBodyRejected } set { fetch.lastBodyRejected = newValue } }
    /// Fetches that failed in a row (0 after a board or a 304 that confirms one); the next
    /// fetch waits `retryDelay(failures:refresh:)` after `lastAttempt`.
    public var consecutiveFailures: Int { get { fetch.consecutiveFailures } set { fetch.consecutiveFailures = newValue } }
    /// The URL the last attempt (and so `retryAfterUntil` and the failures) was for: another
    /// URL configured now owes nothing to them.
    public var attemptURL: String? { get { fetch.attemptURL } set { fetch.attemptURL = newValue } }
    /// Not stored: whether a fetch is in flight now.
    public var isFetching: Bool
    /// Not stored: why this state could not be saved (it is then held in memory).
    public var saveError: String?
    /// Not stored: the push source's state, when the panel has one.
    public var push: LeaderboardPushMode?

    public init(board: LeaderboardBoard? = nil, previous: LeaderboardBoard? = nil, fetchedAt: Date? = nil, skipped: Int = 0,
                lastError: String? = nil, lastAttempt: Date? = nil, isFetching: Bool = false) {
        self.board = board
        self.previous = previous
        self.skipped = skipped
        self.isFetching = isFetching
        fetch = FetchRecord(fetchedAt: fetchedAt, lastError: lastError, lastAttempt: lastAttempt)
    }

    /// The state as its file keeps it — what `init(from:)` reads back from `encode(to:)`: the
    /// fields not stored (`isFetching`, `saveError`, `push`) at their defaults. A field added
    /// outside `CodingKeys` is reset here too.
    var asStored: LeaderboardState {
        var stored = self
        stored.isFetching = false
        stored.saveError = nil
        stored.push = nil
        return stored
    }

    enum CodingKeys: String, CodingKey {
        case board, previous, fetchedAt, skipped, lastError, lastAttempt, retryAfterUntil, lastBodyRejected, consecutiveFailures, attemptURL
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        board = try c.decodeIfPresent(LeaderboardBoard.self, forKey: .board)
        previous = try c.decodeIfPresent(LeaderboardBoard.self, forKey: .previous)
        skipped = try c.decodeIfPresent(Int.self, forKey: .skipped) ?? 0
        isFetching = false
        fetchedAt = try c.decodeIfPresent(Date.self, forKey: .fetchedAt)
        lastError = try c.decodeIfPresent(String.self, forKey: .lastError)
        lastAttempt = try c.decodeIfPresent(Date.self, forKey: .lastAttempt)
        retryAfterUntil = try c.decodeIfPresent(Date.self, forKey: .retryAfterUntil)
        lastBodyRejected = try c.decodeIfPresent(Bool.self, forKey: .lastBodyRejected) ?? false
        consecutiveFailures = try c.decodeIfPresent(Int.self, forKey: .consecutiveFailures) ?? 0
        attemptURL = try c.decodeIfPresent(String.self, forKey: .attemptURL)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(board, forKey: .board)
        try c.encodeIfPresent(previous, forKey: .previous)
        try c.encodeIfPresent(fetchedAt, forKey: .fetchedAt)
        try c.encode(skipped, forKey: .skipped)
        try c.encodeIfPresent(lastError, forKey: .lastError)
        try c.encodeIfPresent(lastAttempt, forKey: .lastAttempt)
        try c.encodeIfPresent(retryAfterUntil, forKey: .retryAfterUntil)
        try c.encode(lastBodyRejected, forKey: .lastBodyRejected)
        try c.encode(consecutiveFailures, forKey: .consecutiveFailures)
        try c.encodeIfPresent(attemptURL, forKey: .attemptURL)
    }

    /// The state with everything a damaged or edited file could make harmful brought back in
    /// bounds: heroes the decoder would refuse dropped, counts clamped, a non-finite date
    /// forgotten.
    func sanitized() -> LeaderboardState {
        var state = self
        state.board = board.map(LeaderboardDecoder.sanitized)
        state.previous = previous.map(LeaderboardDecoder.sanitized)
        state.skipped = min(max(0, skipped), 1_000_000)
        state.fetch = fetch.sanitized()
        return state
    }

    /// How long to wait after `lastAttempt` before fetching again: `refresh` while all is
    /// well; after failures in a row `refresh`, then doubling, up to `maximumBackoff` (or
    /// `refresh` when that is longer).
    public static func retryDelay(failures: Int, refresh: TimeInterval) -> TimeInterval {
        FetchSchedule.retryDelay(failures: failures, refresh: refresh)
    }

    /// A new board arrived: the current one becomes the previous, the error clears.
    public mutating func received(_ result: LeaderboardDecoder.Result, at date: Date) {
        if let board, board != result.board { previous = board }
        board = result.board
        skipped = result.skipped
        fetch.succeeded(at: date)
    }

    /// The server's body could not be read: the board stays, and a later "not modified" for
    /// that same body confirms nothing.
    public mutating func rejected(_ reason: String, at date: Date) {
        fetch.rejected(reason, at: date)
    }

    /// The server said nothing changed (304): the board is fresh as of `date` — unless what
    /// did not change is a body that could not be read (see `FetchRecord.confirmed`).
    public mutating func confirmed(at date: Date) {
        fetch.confirmed(at: date, haveData: board != nil)
    }

    /// A fetch failed: the board stays, the reason is kept for the panel, the backoff grows.
    /// A server's `retryAfter` is kept, at most `maximumRetryAfter`.
    public mutating func failed(_ reason: String, at date: Date, retryAfter: Duration? = nil) {
        fetch.failed(reason, at: date, retryAfter: retryAfter)
    }
}
