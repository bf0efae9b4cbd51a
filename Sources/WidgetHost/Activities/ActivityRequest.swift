import FoundationEssentials
import JSONTree
import TerminalUI

/// One `widgethost activity start|update|end` as it travels: built from the command line,
/// sent as the `activity` method's params over the control socket, and checked again by the
/// dashboard (any process of the user can write to the socket).
///
/// `validated()` is the one check for both sides: IDs `[A-Za-z0-9._-]{1,64}`, a title of at
/// most `maximumTitle` characters (needed to start), a detail of at most `maximumDetail`,
/// progress 0…1, durations in range; texts come back sanitised (a control character is shown
/// inert, never sent to a terminal).
package struct ActivityRequest: Equatable, Sendable {
    enum Action: String, Equatable, Sendable, CaseIterable {
        case start, update, end
    }

    /// Why a request is refused: said to the user as it is (`widgethost activity: …`, exit 2).
    struct Invalid: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    static let maximumTitle = 80
    static let maximumDetail = 200
    static let maximumStaleAfter: TimeInterval = 7 * 86_400
    static let maximumDismissAfter: TimeInterval = 86_400

    var action: Action
    var id: String
    var title: String?
    /// An empty detail clears the one shown.
    var detail: String?
    var progress: Double?
    var staleAfter: TimeInterval?
    /// `end` only: success (the default), failure or cancelled.
    var state: Activity.State?
    var dismissAfter: TimeInterval?

    init(action: Action, id: String, title: String? = nil, detail: String? = nil, progress: Double? = nil,
         staleAfter: TimeInterval? = nil, state: Activity.State? = nil, dismissAfter: TimeInterval? = nil) {
        (self.action, self.id, self.title, self.detail, self.progress) = (action, id, title, detail, progress)
        (self.staleAfter, self.state, self.dismissAfter) = (staleAfter, state, dismissAfter)
    }

    /// The request checked, its texts sanitised; throws `Invalid` naming the first problem.
    func validated() throws(Invalid) -> ActivityRequest {
        guard Self.isValidID(id) else {
            throw Invalid(description: "'\(Sanitizer.sanitize(String(id.prefix(64))))' is not an activity ID: 1 to 64 of A-Z a-z 0-9 . _ -")
        }
        var checked = self
        checked.title = try title.map { text throws(Invalid) in try Self.text(text, limit: Self.maximumTitle, name: "title") }
        checked.detail = try detail.map { text throws(Invalid) in try Self.text(text, limit: Self.maximumDetail, name: "detail", empty: true) }
        if action == .start, checked.title == nil { throw Invalid(description: "start needs --title TEXT") }
        if let progress, !(progress.isFinite && (0...1).contains(progress)) {
            throw Invalid(description: "--progress expects a number from 0 to 1, like 0.4")
        }
        if let staleAfter, !(1...Self.maximumStaleAfter).contains(staleAfter) {
            throw Invalid(description: "--stale-after expects a time from 1s to 7 days, like 10m")
        }
        if let dismissAfter, !(0...Self.maximumDismissAfter).contains(dismissAfter) {
            throw Invalid(description: "--dismiss-after expects a time up to a day, like 5m or 0s")
        }
        switch action {
        case .start, .update:
            if state != nil || dismissAfter != nil { throw Invalid(description: "--state and --dismiss-after go with end") }
        case .end:
            if title != nil || progress != nil || staleAfter != nil {
                throw Invalid(description: "end takes --state, --detail and --dismiss-after (not --title, --progress or --stale-after)")
            }
        }
        return checked
    }

    static func isValidID(_ id: String) -> Bool {
        (1...64).contains(id.utf8.count) && id.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }

    /// `text` sanitised and trimmed, at most `limit` characters.
    static func text(_ text: String, limit: Int, name: String, empty: Bool = false) throws(Invalid) -> String {
        guard text.utf8.count <= limit * 16 else { throw Invalid(description: "a \(name) is at most \(limit) characters") }
        let sanitised = Sanitizer.sanitize(text)
        let clean = String(sanitised.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
        guard clean.count <= limit else { throw Invalid(description: "a \(name) is at most \(limit) characters (this one has \(clean.count))") }
        guard empty || !clean.isEmpty else { throw Invalid(description: "a \(name) cannot be empty") }
        return clean
    }

    // MARK: On the socket

    /// The `activity` method's params.
    var params: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("action", .string(action.rawValue)), ("id", .string(id))]
        if let title { members.append(("title", .string(title))) }
        if let detail { members.append(("detail", .string(detail))) }
        if let progress { members.append(("progress", .number(progress))) }
        if let staleAfter { members.append(("staleAfter", .number(staleAfter))) }
        if let state { members.append(("state", .string(state.rawValue))) }
        if let dismissAfter { members.append(("dismissAfter", .number(dismissAfter))) }
        return .object(JSONObject(members: members))
    }

    /// A request read from params (not yet `validated()`).
    init(params: JSONValue?) throws(Invalid) {
        guard case .object(let o)? = params, case .string(let actionName)? = o["action"],
              let action = Action(rawValue: actionName), case .string(let id)? = o["id"] else {
            throw Invalid(description: "activity expects params {\"action\": \"start\" | \"update\" | \"end\", \"id\": …}")
        }
        func string(_ key: String) throws(Invalid) -> String? {
            switch o[key] {
            case nil, .null?: return nil
            case .string(let text)?: return text
            default: throw Invalid(description: "\(key) must be a string")
            }
        }
        func number(_ key: String) throws(Invalid) -> Double? {
            guard let value = o[key], value != .null else { return nil }
            guard let number = value.finiteNumber else { throw Invalid(description: "\(key) must be a number") }
            return number
        }
        var state: Activity.State?
        if let name = try string("state") {
            guard let given = Activity.State(rawValue: name), given != .active else {
                throw Invalid(description: "--state expects success, failure or cancelled")
            }
            state = given
        }
        self.init(action: action, id: id, title: try string("title"), detail: try string("detail"), progress: try number("progress"),
                  staleAfter: try number("staleAfter"), state: state, dismissAfter: try number("dismissAfter"))
    }
}
