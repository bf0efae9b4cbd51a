import DateTime
import ExtensionProtocol
import FoundationEssentials
import JSONTree
import TerminalUI
import WidgetCore

/// Reads the result of a `timeline` request: `{entries: [{date, relevance?, view}], policy}`,
/// strictly, with a path for every problem (`entries[2].view.children[0].role`).
enum ExtensionTimelineDecoder {
    /// Most entries in one timeline.
    static let maximumEntries = ExtensionProtocol.maximumEntries

    static func decode(_ value: JSONValue) throws(ExtensionError) -> Timeline<ExtensionEntry> {
        var problems: [String] = []
        func fail(_ path: String, _ message: String) { if problems.count < 5 { problems.append("\(path): \(message)") } }
        guard case .object(let object) = value else {
            throw .badAnswer("result: expected {\"entries\": [...], \"policy\": ...}, found \(value.shortDescription)")
        }
        for key in object.keys where TimelineResultMember(rawValue: key) == nil { fail("result.\(RPCMessage.printable(key, limit: 40))", "unknown key") }
        var entries: [ExtensionEntry] = []
        switch object[TimelineResultMember.entries.rawValue] {
        case .array(let elements)? where elements.count <= maximumEntries:
            for (index, element) in elements.enumerated() {
                if let entry = entry(element, path: "entries[\(index)]", fail: fail) { entries.append(entry) }
            }
        case .array(let elements)?:
            fail("entries", "has \(elements.count) entries; at most \(maximumEntries)")
        case nil:
            fail("entries", "is required")
        case let other?:
            fail("entries", "expected an array, found \(other.shortDescription)")
        }
        var policy = TimelineReloadPolicy.atEnd
        switch object[TimelineResultMember.policy.rawValue] {
        case nil, .string("atEnd")?: break
        case .string("never")?: policy = .never
        case .object(let after)? where after.keys == ["after"]:
            if case .string(let text)? = after["after"], let date = ISO8601DateTime.parse(text, .message)?.date { policy = .after(date) }
            else { fail("policy.after", "expected an ISO 8601 date with a time zone") }
        case let other?:
            fail("policy", "expected \"atEnd\", \"never\" or {\"after\": date}, found \(other.shortDescription)")
        }
        if !problems.isEmpty { throw .badAnswer(problems.joined(separator: "; ")) }
        return Timeline(entries: entries.sorted { $0.date < $1.date }, policy: policy)
    }

    /// Reads the result of a `snapshot` request: `{entry: {date, relevance?, view}}`.
    static func decodeSnapshot(_ value: JSONValue) throws(ExtensionError) -> ExtensionEntry {
        var problems: [String] = []
        func fail(_ path: String, _ message: String) { if problems.count < 5 { problems.append("\(path): \(message)") } }
        guard case .object(let object) = value, let element = object[SnapshotResultMember.entry.rawValue] else {
            throw .badAnswer("result: expected {\"entry\": {\"date\": ..., \"view\": ...}}, found \(value.shortDescription)")
        }
        for key in object.keys where SnapshotResultMember(rawValue: key) == nil { fail("result.\(RPCMessage.printable(key, limit: 40))", "unknown key") }
        let decoded = entry(element, path: "entry", fail: fail)
        guard problems.isEmpty, let decoded else { throw .badAnswer(problems.joined(separator: "; ")) }
        return decoded
    }

    /// One `{date, relevance?, view}` at `path`; nil (with the problems reported) when invalid.
    private static func entry(_ element: JSONValue, path: String, fail: (String, String) -> Void) -> ExtensionEntry? {
        guard case .object(let entry) = element else {
            fail(path, "expected an entry object, found \(element.shortDescription)")
            return nil
        }
        for key in entry.keys where EntryMember(rawValue: key) == nil {
            fail("\(path).\(RPCMessage.printable(key, limit: 40))", "unknown key")
        }
        guard case .string(let text)? = entry["date"], let date = ISO8601DateTime.parse(text, .message)?.date else {
            fail(path + ".date", entry["date"] == nil ? "is required: an ISO 8601 date with a time zone (2026-11-30T22:05:00Z)"
                                                      : "expected an ISO 8601 date with a time zone (2026-11-30T22:05:00Z)")
            return nil
        }
        var relevance: TimelineEntryRelevance?
        if let given = entry["relevance"] {
            guard case .object(let fields) = given, let score = number(fields["score"]), score.magnitude <= 1e9,
                  let duration = fields["duration"].map(number) ?? 0, duration >= 0, duration <= 1e9 else {
                fail(path + ".relevance", "expected {\"score\": number, \"duration\": seconds ≥ 0}")
                return nil
            }
            relevance = TimelineEntryRelevance(score: Float(score), duration: duration)
        }
        var url: String?
        if let given = entry["url"] {
            guard case .string(let text) = given, Hyperlink.isAllowed(text) else {
                fail(path + ".url", "expected an http, https or mailto URL of at most \(Hyperlink.maximumBytes) bytes")
                return nil
            }
            url = text
        }
        var alert: EntryAlert?
        if let given = entry["alert"], given != .null {
            guard case .object(let fields) = given, case .string(let levelName)? = fields["level"],
                  let level = EntryAlert.Level(rawValue: levelName), case .string(let text)? = fields["text"],
                  text.count <= EntryAlert.maximumText, fields.keys.allSatisfy({ $0 == "level" || $0 == "text" }) else {
                fail(path + ".alert", "expected {\"level\": \"warning\" | \"critical\", \"text\": at most \(EntryAlert.maximumText) characters}")
                return nil
            }
            alert = EntryAlert(level: level, text: text)
        }
        guard let viewValue = entry["view"] else {
            fail(path + ".view", "is required")
            return nil
        }
        do {
            return ExtensionEntry(date: date, relevance: relevance, view: try ViewNode.decode(viewValue, path: path + ".view"), url: url,
                                  alert: alert)
        } catch {
            for issue in error.issues.prefix(5) { fail(issue.path, issue.message) }
            return nil
        }
    }

    private static func number(_ value: JSONValue?) -> Double? {
        switch value {
        case .integer(let n)?: Double(n)
        case .number(let x)? where x.isFinite: x
        default: nil
        }
    }
}
