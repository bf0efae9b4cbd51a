import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// The `http-json` provider: answers at once from the last good body in its container and,
/// when a fetch is due, starts a conditional download on its background session — the
/// leaderboard's pattern (`FetchSchedule` for the waits; the transport sends `If-None-Match`
/// with the ETag it was last given for the URL).
///
/// The session's events (`HTTPJSONSessionRecorder`) parse and keep the body, or record the
/// failure, and reload the `http-json` kind through `WidgetCenter`. The timeline reaches the
/// next fetch (relative times and ages move on: by the minute for the first hour, coarser
/// after, `ProjectionDates`), policy `.after` the next fetch.
public struct HTTPJSONProvider: TimelineProvider {
    public var url: URL
    /// Request headers, `$NAME` values already taken from the environment. Never shown,
    /// logged or stored: they go to the transport only.
    var headers: [String: String]
    public var fields: [HTTPJSONField]
    public var refreshSeconds: Int
    /// The session as configured (`session`); the background session's identifier is
    /// `HTTPJSONWidget.sessionIdentifier(session)`.
    public var session: String
    /// What the host lends the panel (its sessions, push, container).
    let host: WidgetContext
    let now: @Sendable () -> Date
    /// The `link` option, every entry's `url`.
    var link: String?

    var identifier: String { HTTPJSONWidget.sessionIdentifier(session) }

    public func placeholder(in context: Context) -> HTTPJSONEntry {
        HTTPJSONEntry(date: .distantPast, rows: fields.map { .init(label: $0.label, value: "0000") }, hasData: false)
    }

    /// The values now; in a preview (`isPreview`) each field's sample of its format, as
    /// WidgetKit's snapshot shows sample data, fetched or not.
    public func snapshot(in context: Context) async -> HTTPJSONEntry {
        if context.isPreview {
            let date = now()
            let rows = fields.map { HTTPJSONEntry.Row(label: $0.label, value: $0.format.format($0.format.sample(now: date), now: date)) }
            return HTTPJSONEntry(date: date, rows: rows, hasData: true, fetchedAt: date)
        }
        let stored = HTTPJSONStore(context: host).load(session: identifier, url: url)
        let date = now()
        return HTTPJSONEntry.timeline(fields: fields, stored: stored, isFetching: false, error: stored.state.lastError,
                                      from: date, until: date, retryAt: nil)[0]
    }

    public func timeline(in context: Context) async throws -> Timeline<HTTPJSONEntry> {
        let date = now()
        let stored = HTTPJSONStore(context: host).load(session: identifier, url: url)
        let state = stored.state
        let refresh = TimeInterval(refreshSeconds)
        var error = state.attemptURL == nil || state.attemptURL == url.absoluteString ? state.lastError : nil
        var isFetching = false
        var retryAt: Date?
        if let reason = host.sessionsUnavailableReason {
            if error == nil { error = reason }
        } else if let manager = host.sessions {
            let backgroundSession = manager.session(identifier: identifier)
            let tasks = backgroundSession.allTasks.filter { $0.url.absoluteString == url.absoluteString }
            let wait = context.isUserInitiated ? nil : state.nextFetch(url: url, refresh: refresh, now: date)
            if tasks.contains(where: { $0.state == .running }) {
                isFetching = true
                // `r` joins the running fetch and cuts its backoff wait short (a server's
                // Retry-After the transport is honouring stays).
                if context.isUserInitiated { for task in tasks where task.state == .running { _ = task.retryNow() } }
            } else if wait == nil || tasks.contains(where: { $0.state == .suspended }) {
                // Due; or a download a crashed host left: taken up again, with the headers
                // (which the journal never holds).
                _ = backgroundSession.downloadTask(with: url, taskDescription: HTTPJSONWidget.kind, headers: headers)
                isFetching = true
            } else if state.consecutiveFailures > 0 || state.retryAfterUntil != nil {
                retryAt = wait
            }
            // The user waits for this fetch: the reload that shows it is theirs (free).
            if context.isUserInitiated, isFetching { host.fetchIntents.mark(identifier, .answer) }
        }
        let next = retryAt ?? date + refresh
        var entries = HTTPJSONEntry.timeline(fields: fields, stored: stored, isFetching: isFetching, error: error,
                                             from: date, until: next, retryAt: retryAt)
        if let link { for index in entries.indices { entries[index].url = link } }
        return ProjectionDates.timeline(entries, from: date, nextFetch: next, retrying: retryAt != nil)
    }
}
