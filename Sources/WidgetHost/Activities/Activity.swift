import DateTime
import FoundationEssentials
import JSONTree

/// One Live Activity (DESIGN.md §11): a build, a deploy, a match, started and updated by a
/// script through `widgethost activity`, shown in an `activities` panel or the status bar.
///
/// Every text in it was checked and sanitised by `ActivityRequest.validated()` (or, read back
/// from the journal, by `init?(json:)`): it is bounded and holds no control character.
package struct Activity: Equatable, Sendable {
    enum State: String, Equatable, Sendable, CaseIterable {
        case active, success, failure, cancelled
    }

    var id: String
    var title: String
    var detail: String?
    /// 0…1; nil: no bar (an activity of unknown length).
    var progress: Double?
    var state: State
    var started: Date
    /// The last start, update or end.
    var updated: Date
    /// Drawn stale when not updated for this long (WidgetKit's `staleDate`); nil: never.
    var staleAfter: TimeInterval?
    /// An ended one leaves this long after its end (`ActivityBoard.defaultDismissAfter`).
    var dismissAfter: TimeInterval?

    var isEnded: Bool { state != .active }

    /// When an active one turns stale (nil: it does not).
    var staleDate: Date? { state == .active ? staleAfter.map { updated.addingTimeInterval($0) } : nil }

    func isStale(at now: Date) -> Bool { staleDate.map { now >= $0 } ?? false }

    /// When an ended one leaves the dashboard.
    var dismissDate: Date? { isEnded ? updated.addingTimeInterval(dismissAfter ?? ActivityBoard.defaultDismissAfter) : nil }

    // MARK: JSON

    /// `activity list --json`'s object (DESIGN.md §11), times in ISO 8601.
    func listJSON(at now: Date) -> JSONValue {
        .object(JSONObject(members: [
            ("id", .string(id)), ("title", .string(title)), ("detail", detail.map(JSONValue.string) ?? .null),
            ("progress", progress.map(JSONValue.number) ?? .null), ("state", .string(state.rawValue)),
            ("started", .string(ISOText.utc(started))), ("updated", .string(ISOText.utc(updated))),
            ("staleAfter", staleAfter.map { .number($0) } ?? .null), ("stale", .bool(isStale(at: now))),
        ]))
    }

    /// The journal's record: exact times (seconds since 1970).
    var journalJSON: JSONValue {
        .object(JSONObject(members: [
            ("id", .string(id)), ("title", .string(title)), ("detail", detail.map(JSONValue.string) ?? .null),
            ("progress", progress.map(JSONValue.number) ?? .null), ("state", .string(state.rawValue)),
            ("started", .number(started.timeIntervalSince1970)), ("updated", .number(updated.timeIntervalSince1970)),
            ("staleAfter", staleAfter.map { .number($0) } ?? .null), ("dismissAfter", dismissAfter.map { .number($0) } ?? .null),
        ]))
    }

    /// A journal record read back; nil for one that is not valid (a journal edited by hand is
    /// held to the limits of a request).
    init?(json: JSONValue) {
        guard case .object(let o) = json, case .string(let id)? = o["id"], case .string(let title)? = o["title"],
              case .string(let stateName)? = o["state"], let state = State(rawValue: stateName),
              let started = o["started"]?.finiteNumber, let updated = o["updated"]?.finiteNumber,
              ISOText.years.contains(started), ISOText.years.contains(updated),
              ActivityRequest.isValidID(id), let checkedTitle = try? ActivityRequest.text(title, limit: ActivityRequest.maximumTitle, name: "title")
        else { return nil }
        let detail: String?
        if case .string(let text)? = o["detail"] {
            guard let checked = try? ActivityRequest.text(text, limit: ActivityRequest.maximumDetail, name: "detail") else { return nil }
            detail = checked
        } else {
            detail = nil
        }
        self.init(id: id, title: checkedTitle, detail: detail, progress: o["progress"]?.finiteNumber.map { min(max($0, 0), 1) },
                  state: state, started: Date(timeIntervalSince1970: started), updated: Date(timeIntervalSince1970: updated),
                  staleAfter: o["staleAfter"]?.finiteNumber.map { min(max($0, 1), ActivityRequest.maximumStaleAfter) },
                  dismissAfter: o["dismissAfter"]?.finiteNumber.map { min(max($0, 0), ActivityRequest.maximumDismissAfter) })
    }

    init(id: String, title: String, detail: String? = nil, progress: Double? = nil, state: State = .active, started: Date,
         updated: Date, staleAfter: TimeInterval? = nil, dismissAfter: TimeInterval? = nil) {
        (self.id, self.title, self.detail, self.progress, self.state) = (id, title, detail, progress, state)
        (self.started, self.updated, self.staleAfter, self.dismissAfter) = (started, updated, staleAfter, dismissAfter)
    }
}

extension JSONValue {
    /// An integer or a finite number, as a Double.
    var finiteNumber: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value.isFinite ? value : nil
        default: nil
        }
    }
}

/// Times as the activity and events commands print them.
enum ISOText {
    /// The seconds since 1970 a time read back may have: years 1970 to 9999.
    static let years: ClosedRange<Double> = 0...253_402_300_799

    /// `2026-12-02T13:35:36Z` (whole seconds, UTC; clamped to `years`).
    static func utc(_ date: Date) -> String {
        let seconds = min(max(date.timeIntervalSince1970.rounded(.down), years.lowerBound), years.upperBound)
        let t = CivilTime(unixSeconds: seconds.isFinite ? Int64(seconds) : 0, offset: 0)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let year = String(t.year)
        return String(repeating: "0", count: max(0, 4 - year.count)) + year
            + "-\(two(t.month))-\(two(t.day))T\(two(t.hour)):\(two(t.minute)):\(two(t.second))Z"
    }
}
