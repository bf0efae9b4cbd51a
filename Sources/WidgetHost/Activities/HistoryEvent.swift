import FoundationEssentials
import JSONTree

/// One line of the dashboard's history (`widgethost events`, the `events` panel): an
/// activity's start or end, an alert.
package struct HistoryEvent: Equatable, Sendable {
    enum Kind: String, Equatable, Sendable { case alert, activity }
    enum Level: String, Equatable, Sendable { case info, warning, critical }

    var time: Date
    var kind: Kind
    /// The panel's title (an alert); nil for an activity.
    var panel: String?
    var title: String
    var level: Level
    var text: String

    /// `events --json`'s object (DESIGN.md §11).
    var listJSON: JSONValue {
        .object(JSONObject(members: [
            ("time", .string(ISOText.utc(time))), ("kind", .string(kind.rawValue)), ("panel", panel.map(JSONValue.string) ?? .null),
            ("title", .string(title)), ("level", .string(level.rawValue)), ("text", .string(text)),
        ]))
    }

    /// The journal's line: the time exact.
    var journalJSON: JSONValue {
        .object(JSONObject(members: [
            ("time", .number(time.timeIntervalSince1970)), ("kind", .string(kind.rawValue)),
            ("panel", panel.map(JSONValue.string) ?? .null), ("title", .string(title)), ("level", .string(level.rawValue)),
            ("text", .string(text)),
        ]))
    }

    init(time: Date, kind: Kind, panel: String? = nil, title: String, level: Level, text: String) {
        (self.time, self.kind, self.panel, self.title, self.level, self.text) = (time, kind, panel, title, level, text)
    }

    /// A journal line read back; nil for one that is not valid (texts bounded and sanitised again).
    init?(json: JSONValue) {
        guard case .object(let o) = json, let time = o["time"]?.finiteNumber, ISOText.years.contains(time),
              case .string(let kindName)? = o["kind"], let kind = Kind(rawValue: kindName),
              case .string(let levelName)? = o["level"], let level = Level(rawValue: levelName),
              case .string(let title)? = o["title"], case .string(let text)? = o["text"],
              let cleanTitle = try? ActivityRequest.text(title, limit: ActivityRequest.maximumTitle, name: "title", empty: true),
              let cleanText = try? ActivityRequest.text(text, limit: 2 * ActivityRequest.maximumDetail, name: "text", empty: true)
        else { return nil }
        var panel: String?
        if case .string(let name)? = o["panel"] {
            panel = try? ActivityRequest.text(name, limit: ActivityRequest.maximumTitle, name: "panel", empty: true)
        }
        self.init(time: Date(timeIntervalSince1970: time), kind: kind, panel: panel, title: cleanTitle, level: level, text: cleanText)
    }

    /// What an activity's change records: its start and its end (a failure is critical, a
    /// cancellation a warning).
    static func activity(_ activity: Activity, at time: Date) -> HistoryEvent {
        let level: Level
        let word: String
        switch activity.state {
        case .active: (level, word) = (.info, "started")
        case .success: (level, word) = (.info, "succeeded")
        case .failure: (level, word) = (.critical, "failed")
        case .cancelled: (level, word) = (.warning, "cancelled")
        }
        let detail = activity.detail.flatMap { $0.isEmpty ? nil : $0 }
        return HistoryEvent(time: time, kind: .activity, title: activity.title, level: level,
                            text: activity.id + " " + word + (detail.map { ": " + $0 } ?? ""))
    }
}
