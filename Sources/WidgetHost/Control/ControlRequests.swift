import JSONTree
import TerminalUI
import WidgetCore

/// What the control socket answers (`ControlServer`): `reload` — `WidgetCenter` from a shell —
/// and `activity` — a Live Activity's start, update or end (`ActivityRequest.params`), checked
/// again here, then applied as a message (`.activityRequested`); its result is the activity
/// as `activity list --json` shows it.
///
/// `{"method": "reload", "params": {"kinds": ["leaderboard"]}}` or `{"params": {"all": true}}`
/// asks the dashboard's `WidgetCenter` for new timelines, as a widget's own request is: the
/// system's reload, not the user's (it keeps the minimum interval and counts against the
/// budget). A kind no panel shows is an error naming the kinds there are.
enum ControlRequests {
    /// The most kinds one request names.
    nonisolated static let maximumKinds = 64

    /// The `result` of `request`, or `{"error": message, "code": n}`.
    @MainActor
    static func answer(_ request: JSONValue, center: WidgetCenter, program: DashboardProgram? = nil) -> JSONValue {
        guard case .object(let object) = request, case .string(let method)? = object["method"] else {
            return failure(-32600, "expected a request with a method")
        }
        switch method {
        case "reload": return reload(object["params"], center: center)
        case "activity" where program != nil: return activity(object["params"], program: program!)
        default: return failure(-32601, "unknown method '\(String(method.prefix(40)))' (this dashboard answers: reload, activity)")
        }
    }

    private static func reload(_ params: JSONValue?, center: WidgetCenter) -> JSONValue {
        let shown = Array(Set(center.currentConfigurations().map(\.kind))).sorted()
        guard case .object(let params)? = params else { return failure(-32602, "reload expects params: {\"kinds\": [...]} or {\"all\": true}") }
        if params["all"] == .bool(true) {
            center.reloadAllTimelines()
            return .object(JSONObject(members: [("kinds", .array(shown.map(JSONValue.string)))]))
        }
        guard case .array(let values)? = params["kinds"], (1...maximumKinds).contains(values.count) else {
            return failure(-32602, "reload expects 1 to \(maximumKinds) kinds, or all")
        }
        var kinds: [String] = []
        for value in values {
            guard case .string(let kind) = value, kind.utf8.count <= 200 else { return failure(-32602, "a kind is a name (a string)") }
            guard shown.contains(kind) else {
                let name = Sanitizer.sanitize(String(kind.prefix(60)))
                return failure(-32602, "no panel of kind '\(name)' on this dashboard (its kinds: \(shown.joined(separator: ", ")))")
            }
            kinds.append(kind)
        }
        for kind in kinds { center.reloadTimelines(ofKind: kind) }
        return .object(JSONObject(members: [("kinds", .array(kinds.map(JSONValue.string)))]))
    }

    @MainActor
    private static func activity(_ params: JSONValue?, program: DashboardProgram) -> JSONValue {
        let request: ActivityRequest
        do throws(ActivityRequest.Invalid) {
            request = try ActivityRequest(params: params).validated()
        } catch {
            return failure(-32602, error.description)
        }
        if let refusal = program.dashboard.checkActivity(request, at: program.clock.now) { return failure(-32602, refusal) }
        program.send(.activityRequested(request))
        return program.dashboard.activities[request.id]?.listJSON(at: program.clock.now) ?? .null
    }

    static func failure(_ code: Int, _ message: String) -> JSONValue {
        .object(JSONObject(members: [("error", .string(message)), ("code", .integer(code))]))
    }
}
