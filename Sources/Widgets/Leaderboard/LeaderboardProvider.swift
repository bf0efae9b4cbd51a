import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// The leaderboard's timeline provider: answers at once from the last board in its container
/// and, when a fetch is due, starts a conditional download on its background session.
///
/// It never waits on the network. The session's events save the new board and reload this
/// widget through `WidgetCenter`; between fetches the timeline animates the board (health
/// recovering: an entry a minute for the first hour, coarser after), policy `.after(next fetch)`. A failed fetch backs off
/// (doubling from `refreshSeconds` up to 5 minutes, board or no board) and a server's
/// Retry-After (capped at the transport's 300 s, and only for the URL that sent it) may make
/// the wait longer; meanwhile the footer says "retry in Ns". A user reload fetches at once —
/// clearing those waits, joining a download already running, and cutting its backoff wait
/// short; a Retry-After the transport is honouring for a running download stays, and the
/// footer says "retry in Ns" (DESIGN.md §2.6).
public struct LeaderboardProvider: TimelineProvider {
    /// The longest wait between fetches while the push stream is up: a safety net for a
    /// missed event (at least `refreshSeconds`).
    public static let pushSafetyInterval: TimeInterval = 600

    /// The push source (`push` option), if any: while its stream is live, polling slows to
    /// `pushSafetyInterval` and the footer says `live`; else `polling`.
    public var push: URL? = nil
    public var url: URL
    public var refreshSeconds: Int
    public var session: String
    public var maxRows: Int
    /// What the host lends the panel (its sessions, push, container).
    let host: WidgetContext
    let now: @Sendable () -> Date
    /// What the panel holds while it exists: its session's registration and its push
    /// subscription, let go with the provider (a panel removed by a config reload).
    var leases: Leases? = nil

    /// The registrations a panel's provider holds (see `LeaderboardSessionRegistry.Lease`).
    public final class Leases: Sendable {
        let session: LeaderboardSessionRegistry.Lease
        let push: PushCenter.Subscription?
        public init(session: LeaderboardSessionRegistry.Lease, push: PushCenter.Subscription?) {
            self.session = session
            self.push = push
        }
    }

    public func placeholder(in context: Context) -> LeaderboardEntry {
        LeaderboardEntry(date: .distantPast, board: nil, maxRows: maxRows)
    }

    /// The board now; in a preview (`isPreview`: a gallery, `preview --snapshot`) the sample
    /// board, as WidgetKit's snapshot shows sample data there, fetched or not.
    public func snapshot(in context: Context) async -> LeaderboardEntry {
        if context.isPreview {
            let date = now()
            return LeaderboardEntry(date: date, board: .sample(updated: date), fetchedAt: date, maxRows: maxRows)
        }
        let state = LeaderboardStore(context: host).load(session: session)
        return LeaderboardEntry.timeline(state, from: now(), until: now(), maxRows: maxRows)[0]
    }

    public func timeline(in context: Context) async throws -> Timeline<LeaderboardEntry> {
        let store = LeaderboardStore(context: host)
        // A board a full disk kept from being saved is written again first; until it is, no
        // fetch starts (its result could not be kept either) and the panel says why.
        let unsaved = store.retryUnsaved(session: session)
        // Off the loop a download may start: there is always a timeline.
        return timeline(store.load(session: session), unsaved: unsaved, context: context, onLoop: false)!
    }

    /// At most this many heroes × entries are projected on the loop (a few hundred µs);
    /// a larger timeline is computed on a provider thread.
    static let onLoopMaximumProjections = 4096

    /// A reload on the loop — the one after a delivery, and the user's `r` — when the state is
    /// in memory (`LeaderboardStore.loadFromMemory`: a 304's times, or the small board just
    /// written), so nothing is read or decoded, and a download it starts is journalled without
    /// waiting (`downloadTaskWithoutWaiting`: a WAL append at once). Nil — the call runs on a
    /// provider thread — when that insert would wait, for a large board, or a state not saved.
    public func timelineOnLoop(in context: Context) -> Timeline<LeaderboardEntry>? {
        guard let state = LeaderboardStore(context: host).loadFromMemory(session: session) else { return nil }
        return timeline(state, unsaved: false, context: context, onLoop: true)
    }

    /// The timeline for `state`; nil when `onLoop` and it would start a download or project
    /// too much.
    private func timeline(_ state: LeaderboardState, unsaved: Bool, context: Context, onLoop: Bool) -> Timeline<LeaderboardEntry>? {
        let date = now()
        var state = state
        // Without push sources (snapshots, previews) the panel says neither.
        let live = push.flatMap { url in host.push.map { $0.isLive(url.absoluteString) } }
        state.push = live.map { $0 ? .live : .polling }
        let refresh = live == true ? max(TimeInterval(refreshSeconds), Self.pushSafetyInterval) : TimeInterval(refreshSeconds)
        var retryAt: Date?
        if onLoop {
            // Checked before a download may start: at most the entries of the longest wait.
            let longest = max(refresh, LeaderboardState.maximumBackoff, LeaderboardState.maximumRetryAfter)
            let minutes = min(longest / 60, Double(LeaderboardEntry.maximumEntries)) + 1
            let heroes = (state.board?.heroes.count ?? 0) + 1
            guard Double(heroes) * minutes <= Double(Self.onLoopMaximumProjections) else { return nil }
        }
        if let reason = host.sessionsUnavailableReason {
            if state.lastError == nil { state.lastError = reason }
        } else if let manager = host.sessions, !unsaved {
            let backgroundSession = manager.session(identifier: session)
            // A task a crashed host left suspended is taken up by the host's `resumeTasks`, with
            // the URL configured now: join it rather than start a second download.
            let tasks = backgroundSession.allTasks
            let running = tasks.contains { $0.state == .running || $0.state == .suspended }
            // The user (`r`, `R`) asks now: no backoff, no stored Retry-After holds that back.
            let wait = context.isUserInitiated ? nil : Self.nextFetch(state, url: url, refresh: refresh, now: date)
            if running {
                state.isFetching = true
                if context.isUserInitiated { Self.expedite(tasks, state: &state) }
            } else if wait == nil {
                if onLoop {
                    // The task's insert is made on the loop only when it is a WAL append at once.
                    guard backgroundSession.downloadTaskWithoutWaiting(with: url, taskDescription: "board") != nil else { return nil }
                } else {
                    _ = backgroundSession.downloadTask(with: url, taskDescription: "board")
                }
                state.isFetching = true
            } else if state.consecutiveFailures > 0 || state.retryAfterUntil != nil {
                retryAt = wait
            }
            // The user waits for this fetch: the reloads that show it are theirs (free).
            if context.isUserInitiated, state.isFetching { host.fetchIntents.mark(session, .answer) }
        }
        // Ask again when the next fetch is due: after the backoff or Retry-After when waiting.
        // The entries thin out to reach it (`ProjectionDates`), so no reload counted against
        // the budget comes in between; only a wait beyond them (over a day) asks again sooner,
        // where the next entry would have been: the projection never freezes.
        let next = retryAt ?? date + refresh
        let entries = LeaderboardEntry.timeline(state, from: date, until: next, maxRows: maxRows, retryAt: retryAt)
        return ProjectionDates.timeline(entries, from: date, nextFetch: next, retrying: retryAt != nil)
    }

    /// When the next fetch of `url` is due after `now`, or nil when it is due now.
    ///
    /// After failures in a row the wait doubles (`LeaderboardState.retryDelay`), with or
    /// without a board; a server's Retry-After can only make it longer, and never by more than
    /// `maximumRetryAfter` after the attempt that got it (a state file written before the cap
    /// existed may hold 1000 days). A last attempt in the future (the clock was stepped back)
    /// says nothing about now: fetch. A state about another URL owes this one nothing either:
    /// the config changed, fetch now.
    static func nextFetch(_ state: LeaderboardState, url: URL, refresh: TimeInterval, now: Date) -> Date? {
        state.fetch.nextFetch(url: url, refresh: refresh, now: now)
    }

    /// A user reload joining running downloads: a backoff wait is cut short; a server's
    /// `Retry-After` is kept and its remaining wait goes into the error line, after the reason
    /// the failed attempt gave (the transport's wait, running now, is honoured; only a wait
    /// the widget stored after a transfer ended is the user's to clear).
    private static func expedite(_ tasks: [BackgroundDownloadTask], state: inout LeaderboardState) {
        var shown = false
        for task in tasks where task.state == .running {
            guard case .honouringRetryAfter(let remaining) = task.retryNow(), !shown else { continue }
            let seconds = DurationText.wholeSeconds(remaining)
            let reason = task.lastError ?? state.lastError ?? "server asked to wait"
            state.lastError = "\(reason) · retry in \(seconds)s"
            shown = true
        }
    }
}
