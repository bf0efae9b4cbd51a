import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// The `prometheus` provider: answers at once from the last answer kept in its container and,
/// when a query is due, starts it as a download on the `prometheus` background session — the
/// `http-json` pattern (`FetchSchedule` for the waits), unconditional (Prometheus sends no
/// validators) and keeping a 4xx answer's body, where Prometheus says what is wrong with the
/// query.
///
/// The session's events (`PrometheusSessionRecorder`) read, bound and keep the answer, or
/// record Prometheus's error, and reload the `prometheus` kind through `WidgetCenter`.
struct PrometheusProvider: TimelineProvider {
    var panel: PrometheusPanel
    /// What the host lends the panel (its sessions, container).
    let host: WidgetContext
    let now: @Sendable () -> Date

    func placeholder(in context: Context) -> PrometheusEntry {
        PrometheusEntry(date: .distantPast, rows: [.init(label: "series", latest: 0, points: [])], totalSeries: 1,
                        display: panel.display, format: panel.format, hasData: false, isFetching: false)
    }

    func snapshot(in context: Context) async -> PrometheusEntry {
        let stored = PrometheusWidget.store(host).load(session: PrometheusWidget.session, url: panel.query.key)
        let date = now()
        return PrometheusEntry.timeline(panel: panel, stored: stored, isFetching: false, error: stored.state.lastError,
                                        from: date, until: date, retryAt: nil)[0]
    }

    func timeline(in context: Context) async throws -> Timeline<PrometheusEntry> {
        let date = now()
        let key = panel.query.key
        let stored = PrometheusWidget.store(host).load(session: PrometheusWidget.session, url: key)
        let state = stored.state
        let refresh = TimeInterval(panel.refreshSeconds)
        var error = state.lastError
        var isFetching = false
        var retryAt: Date?
        if let reason = host.sessionsUnavailableReason {
            if error == nil { error = reason }
        } else if let manager = host.sessions {
            let session = manager.session(identifier: PrometheusWidget.session)
            let tasks = session.allTasks.filter { panel.query.matches($0.url) }
            let wait = context.isUserInitiated ? nil : state.nextFetch(url: key, refresh: refresh, now: date)
            if tasks.contains(where: { $0.state == .running }) {
                isFetching = true
                if context.isUserInitiated { for task in tasks where task.state == .running { _ = task.retryNow() } }
            } else if wait == nil || tasks.contains(where: { $0.state == .suspended }) {
                // Due; or a query a crashed host left: taken up again with the headers (an
                // instant query's URL is the same), or, for a range that has moved on, replaced.
                let url = panel.query.url(at: date)
                for task in tasks where task.state == .suspended && task.url.absoluteString != url.absoluteString { task.cancel() }
                _ = session.downloadTask(with: url, taskDescription: PrometheusWidget.kind,
                                         headers: panel.headers, conditional: false, keepsErrorBody: true)
                isFetching = true
            } else if state.consecutiveFailures > 0 || state.retryAfterUntil != nil {
                retryAt = wait
            }
            // The user waits for this fetch: the reload that shows it is theirs (free).
            if context.isUserInitiated, isFetching { host.fetchIntents.mark(PrometheusWidget.session, .answer) }
        }
        let next = retryAt ?? date + refresh
        let entries = PrometheusEntry.timeline(panel: panel, stored: stored, isFetching: isFetching, error: error,
                                               from: date, until: next, retryAt: retryAt)
        return ProjectionDates.timeline(entries, from: date, nextFetch: next, retrying: retryAt != nil)
    }
}
