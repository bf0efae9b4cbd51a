import FoundationEssentials
import JSONTree
import WidgetCore

/// One field of an `http-json` panel: a label, where its value is in the document, and how it
/// is shown.
public struct HTTPJSONField: Sendable, Equatable {
    public var label: String
    public var pointer: JSONPointer
    public var format: HTTPJSONFormat
    /// A number above / below this is an alert (a warning).
    public var alertAbove: Double?
    public var alertBelow: Double?

    public init(label: String, pointer: JSONPointer, format: HTTPJSONFormat = .text, alertAbove: Double? = nil,
                alertBelow: Double? = nil) {
        self.label = label
        self.pointer = pointer
        self.format = format
        self.alertAbove = alertAbove
        self.alertBelow = alertBelow
    }

    /// Whether `value` is a number past `alertAbove` or `alertBelow`.
    func isAlerting(_ value: JSONValue?) -> Bool {
        let number: Double? = switch value {
        case .integer(let n)?: Double(n)
        case .number(let x)? where x.isFinite: x
        default: nil
        }
        guard let number else { return false }
        return alertAbove.map { number > $0 } == true || alertBelow.map { number < $0 } == true
    }
}

/// One moment of an `http-json` panel: each field's value formatted (nil where the pointer
/// names nothing: the row shows `—`), and how the last fetch went.
public struct HTTPJSONEntry: TimelineEntry, Equatable, Codable {
    public struct Row: Sendable, Equatable, Codable {
        public var label: String
        /// The formatted value; nil when the document has nothing there (or no document yet).
        public var value: String?
        /// The value is past its field's `alertAbove`/`alertBelow` (nil: not).
        public var alerting: Bool?
    }

    public var date: Date
    public var rows: [Row]
    /// Whether a good body was ever received (else the values are all missing).
    public var hasData: Bool
    /// When the values were received (or confirmed by the server).
    public var fetchedAt: Date?
    /// Why the last fetch failed (the values shown are then older), with "retry in Ns" while
    /// a backoff or the server's Retry-After holds the next one back.
    public var fetchError: String?
    public var isFetching: Bool
    /// When the next fetch is held to while `fetchError` says "retry in Ns": the view then
    /// counts the seconds down at each frame's time.
    public var retryAt: Date?
    /// The panel's `link` option: where `o` leads.
    public var url: String?

    public init(date: Date, rows: [Row], hasData: Bool, fetchedAt: Date? = nil, fetchError: String? = nil, isFetching: Bool = false) {
        self.date = date
        self.rows = rows
        self.hasData = hasData
        self.fetchedAt = fetchedAt
        self.fetchError = fetchError
        self.isFetching = isFetching
    }

    /// Entries in one timeline at most: a day's refresh fits (`ProjectionDates`).
    public static let maximumEntries = ProjectionDates.maximumEntries

    /// The entries from `start` until `end` at `ProjectionDates` (at least one, at `start`; by
    /// the minute for the first hour, coarser after, so they reach the next fetch), each with
    /// the values formatted at its own date (ages and relative times move on) and
    /// "· retry in Ns" counted from its date while `retryAt` is ahead.
    static func timeline(fields: [HTTPJSONField], stored: HTTPJSONStore.Stored, isFetching: Bool, error: String?,
                         from start: Date, until end: Date, retryAt: Date?) -> [HTTPJSONEntry] {
        let dates = ProjectionDates.dates(from: start, until: end, maximum: maximumEntries)
        let values = fields.map { field in stored.body.flatMap { field.pointer.resolve(in: $0) } }
        return dates.map { date in
            let rows = zip(fields, values).map { field, value in
                Row(label: field.label, value: value.map { field.format.format($0, now: date) },
                    alerting: field.isAlerting(value) ? true : nil)
            }
            var fetchError = error
            if let reason = fetchError, let retryAt, retryAt > date {
                fetchError = "\(reason) · retry in \(DurationText.wholeSeconds(retryAt.timeIntervalSince(date)))s"
            }
            if let saveError = stored.saveError {
                fetchError = [saveError, fetchError].compactMap { $0 }.joined(separator: " · ")
            }
            var entry = HTTPJSONEntry(date: date, rows: rows, hasData: stored.body != nil, fetchedAt: stored.state.fetchedAt,
                                      fetchError: fetchError, isFetching: isFetching)
            if error != nil, let retryAt, retryAt > date { entry.retryAt = retryAt }
            return entry
        }
    }
}
