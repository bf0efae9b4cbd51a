import FoundationEssentials
import JSONTree
import WidgetCore

/// One moment of a `prometheus` panel: a row per series kept (its legend label, latest value
/// and values over the range), how many series the query matched, how the panel shows them,
/// and how the last query went.
public struct PrometheusEntry: TimelineEntry, Equatable, Codable {
    public struct Row: Sendable, Equatable, Codable {
        public var label: String
        /// The latest value; nil when the series has none.
        public var latest: Double?
        /// Oldest first (a range query's; one value for an instant query).
        public var points: [Double]
    }

    public var date: Date
    public var rows: [Row]
    /// Series the query matched (more than `rows.count` when it was cut).
    public var totalSeries: Int
    public var display: PrometheusDisplay
    public var format: HTTPJSONFormat
    public var alertAbove: Double?
    public var alertBelow: Double?
    /// Whether an answer was ever received (else there are no rows).
    public var hasData: Bool
    public var fetchedAt: Date?
    /// Why the last query failed (Prometheus's own message, or the transport's), with
    /// "retry in Ns" while a backoff holds the next one back.
    public var fetchError: String?
    public var isFetching: Bool
    /// When the next fetch is held to while `fetchError` says "retry in Ns" (counted down by
    /// the view at each frame's time).
    public var retryAt: Date?

    /// `value` as the panel's `format` shows it; `—` when there is none.
    public func text(_ value: Double?, missing: String = "—") -> String {
        guard let value else { return missing }
        guard value.isFinite else { return PrometheusResult.text(value) }
        return format.format(.number(value), now: date)
    }

    /// Whether `value` crosses `alertAbove` or `alertBelow`.
    public func isAlerting(_ value: Double?) -> Bool {
        guard let value, !value.isNaN else { return false }
        return alertAbove.map { value > $0 } == true || alertBelow.map { value < $0 } == true
    }

    /// Entries in one timeline at most: a day's refresh fits (`ProjectionDates`).
    static let maximumEntries = ProjectionDates.maximumEntries

    /// The entries from `start` until `end` at `ProjectionDates` (by the minute for the first
    /// hour, coarser after: ages move on, and a long refresh is reached without a reload), each
    /// with "· retry in Ns" counted from its date while `retryAt` is ahead.
    static func timeline(panel: PrometheusPanel, stored: HTTPJSONStore.Stored, isFetching: Bool, error: String?,
                         from start: Date, until end: Date, retryAt: Date?) -> [PrometheusEntry] {
        let dates = ProjectionDates.dates(from: start, until: end, maximum: maximumEntries)
        let result = stored.body.flatMap(PrometheusResult.init(stored:))
        let rows = (result?.series ?? []).map { series in
            Row(label: panel.legend.label(for: series), latest: series.values.last, points: series.values)
        }
        return dates.map { date in
            var fetchError = error
            if let reason = fetchError, let retryAt, retryAt > date {
                fetchError = "\(reason) · retry in \(DurationText.wholeSeconds(retryAt.timeIntervalSince(date)))s"
            }
            if let saveError = stored.saveError {
                fetchError = [saveError, fetchError].compactMap { $0 }.joined(separator: " · ")
            }
            var entry = PrometheusEntry(date: date, rows: rows, totalSeries: result?.totalSeries ?? 0, display: panel.display,
                                        format: panel.format, alertAbove: panel.alertAbove, alertBelow: panel.alertBelow,
                                        hasData: result != nil, fetchedAt: stored.state.fetchedAt, fetchError: fetchError,
                                        isFetching: isFetching)
            if error != nil, let retryAt, retryAt > date { entry.retryAt = retryAt }
            return entry
        }
    }
}
