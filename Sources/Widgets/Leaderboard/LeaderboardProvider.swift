import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// The leaderboard's timeline provider: answers at once from the last board in its container
/// and, when a fetch is due, starts a conditional download on its background session.
///
/// It never waits on the network. The session's events save the new board and reload this
/// widget through `WidgetCenter`; between fetches the timeline animates the board (one entry
/// per minute with health recovering), policy `.after(next fetch)`. A user reload fetches at
/// once — joining a download already running, and cutting its backoff wait short — unless the
/// server asked to wait (Retry-After): then the footer says "retry in Ns" (DESIGN.md §2.6).
public struct LeaderboardProvider: TimelineProvider {
    public var url: URL
    public var refreshSeconds: Int
    public var session: String
    public var maxRows: Int
    let services: WidgetServices
    let now: @Sendable () -> Date

    public func placeholder(in context: Context) -> LeaderboardEntry {
        LeaderboardEntry(date: .distantPast, board: nil, maxRows: maxRows)
    }

    public func snapshot(in context: Context) async -> LeaderboardEntry {
        let state = LeaderboardStore(services: services).load(session: session)
        return LeaderboardEntry.timeline(state, from: now(), until: now(), maxRows: maxRows)[0]
    }

    public func timeline(in context: Context) async throws -> Timeline<LeaderboardEntry> {
        let date = now()
        var state = LeaderboardStore(services: services).load(session: session)
        let refresh = TimeInterval(refreshSeconds)
        if let reason = services.sessionsUnavailableReason {
            if state.lastError == nil { state.lastError = reason }
        } else if let manager = services.sessions {
            let backgroundSession = manager.session(identifier: session)
            // A task a crashed host left suspended is taken up by the host's `resumeTasks`, with
            // the URL configured now: join it rather than start a second download.
            let tasks = backgroundSession.allTasks
            let running = tasks.contains { $0.state == .running || $0.state == .suspended }
            let waitingForServer = state.retryAfterUntil.map { $0 > date } ?? false
            let stale = state.lastAttempt.map { date.timeIntervalSince($0) >= refresh - 0.5 } ?? true
            var retryShown = false
            if running {
                state.isFetching = true
                if context.isUserInitiated { retryShown = Self.expedite(tasks, state: &state) }
            } else if !waitingForServer && (stale || context.isUserInitiated || state.board == nil) {
                _ = backgroundSession.downloadTask(with: url, taskDescription: "board")
                state.isFetching = true
            }
            if waitingForServer, !retryShown, let until = state.retryAfterUntil, let error = state.lastError {
                state.lastError = "\(error) · retry in \(Int(until.timeIntervalSince(date).rounded(.up)))s"
            }
        }
        let next = date + refresh
        return Timeline(entries: LeaderboardEntry.timeline(state, from: date, until: next, maxRows: maxRows),
                        policy: .after(next))
    }

    /// A user reload joining running downloads: a backoff wait is cut short; a server's
    /// `Retry-After` is kept and its remaining wait goes into the error line, after the reason
    /// the failed attempt gave. Returns whether it wrote such a wait.
    private static func expedite(_ tasks: [BackgroundDownloadTask], state: inout LeaderboardState) -> Bool {
        var shown = false
        for task in tasks where task.state == .running {
            guard case .honouringRetryAfter(let remaining) = task.retryNow(), !shown else { continue }
            let seconds = Int((Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18).rounded(.up))
            let reason = task.lastError ?? state.lastError ?? "server asked to wait"
            state.lastError = "\(reason) · retry in \(seconds)s"
            shown = true
        }
        return shown
    }
}
