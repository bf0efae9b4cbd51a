import BackgroundSessions
import FoundationEssentials
import WidgetCore

/// The `http-json` widget: values picked out of a JSON document fetched through a background
/// session, by JSON Pointer, as labelled rows.
///
/// Options (DESIGN.md §4, `HTTPJSONOptions`): `url`, `headers` (a value `"$NAME"` is taken from the host's
/// environment — the value is never logged, stored or shown), `fields` (`label`, `pointer`,
/// `format`), `refreshSeconds`, `session`.
public enum HTTPJSONWidget {
    public static let kind = "http-json"
    public static let defaultSession = "http-json"
    /// Background sessions of this widget are named `http-json.<session>`, so they never meet
    /// the leaderboard's (a user naming both "leaderboard" gets two sessions, not one).
    static let identifierPrefix = "http-json."

    static func sessionIdentifier(_ session: String) -> String { identifierPrefix + session }

    /// The widget, bound to the host's sessions, state directory and environment.
    public static func configuration(context: WidgetContext) -> TerminalWidget {
        TerminalWidget(
            manifest: manifest,
            makeProvider: { options in
                let options = try HTTPJSONOptions(options)
                guard let url = URL(string: options.url), url.scheme == "http" || url.scheme == "https" else {
                    throw OptionError("url must be an http or https URL")
                }
                let session = options.session
                try LeaderboardWidget.validate(session: session)
                let headers = try resolve(headers: options.headers ?? [:], environment: context.environment)
                let fields = try parse(fields: options.fields)
                return AnyTimelineProvider(HTTPJSONProvider(
                    url: url, headers: headers, fields: fields,
                    refreshSeconds: min(max(1, options.refreshSeconds), LeaderboardWidget.maximumRefreshSeconds),
                    session: session, host: context, now: context.now, link: options.link))
            },
            view: PanelView.typed(HTTPJSONView.view)
        )
        .alerting { entry, _ in (entry as? HTTPJSONEntry).flatMap(alert) }
        .onBackgroundSessionEvents(matching: { $0.hasPrefix(identifierPrefix) }) { identifier, completion in
            guard let manager = context.sessions else { return completion() }
            let recorder = HTTPJSONSessionRecorder(store: HTTPJSONStore(context: context), center: context.center)
            let delegate = FetchSessionDelegate(recorder, intents: context.fetchIntents, now: context.now, completion: completion)
            _ = manager.session(identifier: identifier, delegate: delegate)
        }
    }

    /// A warning while a field's number is past its `alertAbove`/`alertBelow`: the first named.
    static func alert(_ entry: HTTPJSONEntry) -> EntryAlert? {
        let over = entry.rows.filter { $0.alerting == true }
        guard let first = over.first else { return nil }
        return EntryAlert(level: .warning, text: "\(first.label) \(first.value ?? "")" + (over.count > 1 ? " (+\(over.count - 1) more)" : ""))
    }

    /// The fields, their pointers parsed; an error names the field's key path.
    static func parse(fields: [HTTPJSONOptions.Field]) throws -> [HTTPJSONField] {
        guard !fields.isEmpty else { throw OptionError("fields: give at least one field") }
        return try fields.enumerated().map { index, field in
            let pointer: JSONPointer
            do {
                pointer = try JSONPointer(field.pointer)
            } catch {
                throw OptionError("fields[\(index)].pointer: \(error)")
            }
            return HTTPJSONField(label: field.label, pointer: pointer, format: field.format, alertAbove: field.alertAbove,
                                 alertBelow: field.alertBelow)
        }
    }

    /// The request headers with `"$NAME"` values taken from `environment`. An error names the
    /// header and the variable, never a value.
    static func resolve(headers: [String: String], environment: [String: String]) throws -> [String: String] {
        var resolved: [String: String] = [:]
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            guard HTTPHeaderRules.isToken(name) else {
                throw OptionError("headers.\(name): not a header name (letters, digits and !#$%&'*+-.^_`|~)")
            }
            guard !HTTPHeaderRules.isReserved(name) else {
                throw OptionError("headers.\(name): set by the host (framing, connection, conditional requests), cannot be given")
            }
            var actual = value
            let variable = String(value.dropFirst())
            if value.hasPrefix("$"), isVariableName(variable) {
                guard let fromEnvironment = environment[variable] else {
                    throw OptionError("headers.\(name): the environment variable \(variable) is not set")
                }
                actual = fromEnvironment
            }
            // A line break would end the header and start another: refused, without the value.
            guard !HTTPHeaderRules.hasControlCharacter(actual) else {
                throw OptionError("headers.\(name): the value holds a control character")
            }
            resolved[name] = actual
        }
        return resolved
    }

    /// `NAME` of a `"$NAME"` value: a letter or `_`, then letters, digits, `_` (POSIX); a value
    /// like `"$"` or `"$5 off"` is sent as written.
    private static func isVariableName(_ text: String) -> Bool {
        guard let first = text.utf8.first, !(0x30...0x39).contains(first), text.utf8.count <= 256 else { return false }
        return text.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "_"): true
            default: false
            }
        }
    }
}
