import JSONTree
import WidgetCore
import Widgets

/// The Edit Widget form (`Enter` in edit mode, DESIGN.md §10): one row per option of the
/// focused panel's manifest, with its doc, its default and its value as text, each change
/// checked as `check-config` checks the file, the message under the field.
///
/// Values are typed as `config add --option` takes them (`OptionType.value(fromCommandLine:)`):
/// text as it is, lists and objects as JSON; an empty value leaves the option out (its default).
struct WidgetForm: Equatable, Sendable {
    struct Row: Equatable, Sendable {
        var spec: OptionSpec
        /// The value as typed; empty: not given.
        var text: String
        /// What `check-config` says about it, if anything.
        var problem: String?

        /// `→` opens a picker: the option is `dynamic`, or a time zone (any kind's: the zones
        /// of the tz database when its widget gives none).
        var hasPicker: Bool { spec.dynamic || spec.type == .timeZone }
    }

    /// The panel edited, page after page.
    var panel: Int
    var kind: String
    /// The panel's title as the dashboard shows it.
    var title: String
    var rows: [Row]
    var selected = 0
    /// Problems of the panel's options as a whole (`give 'command' or 'argv'`).
    var problems: [String] = []
    /// The picker of a `dynamic` option's row (`→`), when open.
    var picker: OptionPicker?

    /// The form for `panelValue` (a panel of `manifest`'s kind) at index `panel`.
    init(panel: Int, panelValue: JSONValue, manifest: WidgetManifest) {
        self.panel = panel
        kind = manifest.kind
        var given = JSONObject()
        var titled: String?
        if case .object(let object) = panelValue {
            if case .object(let options)? = object["options"] { given = options }
            if case .string(let text)? = object["title"] { titled = text }
        }
        let label = given[manifest.titleOption ?? ""].flatMap { if case .string(let text) = $0 { text } else { nil } }
        title = titled ?? label ?? manifest.displayName
        rows = manifest.options.map { spec in
            Row(spec: spec, text: given[spec.name].map(Self.text(of:)) ?? "")
        }
    }

    /// A value as the form shows it: text bare, the rest as JSON.
    static func text(of value: JSONValue) -> String {
        if case .string(let text) = value { return text }
        return value.jsonText
    }

    /// The panel with the form's options in place of its own (the other keys kept).
    func applied(to panelValue: JSONValue) -> JSONValue {
        guard case .object(let object) = panelValue else { return panelValue }
        let options = rows.filter { !$0.text.isEmpty }.map { row in
            (key: row.spec.name, value: row.spec.type.value(fromCommandLine: row.text) ?? .string(row.text))
        }
        guard !options.isEmpty else { return .object(object.removing("options")) }
        return .object(object.setting("options", .object(JSONObject(members: options))))
    }

    /// The options as the form has them, each that reads as its type (a picker's query sends
    /// them: the hero's `session` says whose board to list).
    var currentOptions: WidgetOptions {
        let decoder = OptionDecoder(isKnownTimeZone: { _ in true }, minimumReloadSeconds: 1, checksContents: false)
        var report = OptionReport()
        var values: [String: WidgetOptions.Value] = [:]
        for row in rows where !row.text.isEmpty {
            guard let json = row.spec.type.value(fromCommandLine: row.text) else { continue }
            values[row.spec.name] = decoder.decode(json, as: row.spec.type, at: .root, into: &report)
        }
        return WidgetOptions(values)
    }

    /// Takes the validator's errors for the panel: each under its option's row, the others
    /// (about the options as a whole) in `problems`.
    ///
    /// - Parameter prefix: the panel's options' key path (`panels[2].options`).
    mutating func take(_ errors: [ConfigDiagnostic], prefix: String) {
        for index in rows.indices { rows[index].problem = nil }
        problems = []
        for error in errors {
            let path = "\(error.path)"
            guard path == prefix || path.hasPrefix(prefix + ".") || path.hasPrefix(prefix + "[") else { continue }
            let name = path.dropFirst(prefix.count + 1).prefix { $0 != "." && $0 != "[" }
            if let index = rows.firstIndex(where: { $0.spec.name == name }), path != prefix {
                rows[index].problem = rows[index].problem ?? error.message
            } else {
                problems.append(error.message)
            }
        }
    }

    /// Whether nothing stops the form from being applied.
    var isValid: Bool { problems.isEmpty && rows.allSatisfy { $0.problem == nil } }

    /// Space on a row with choices (a boolean, an enum): the next one; nil for free text.
    static func nextChoice(after text: String, for type: OptionType) -> String? {
        let choices: [String]
        switch type {
        case .bool: choices = ["", "true", "false"]
        case .oneOf(let names): choices = [""] + names
        default: return nil
        }
        let index = choices.firstIndex(of: text) ?? 0
        return choices[(index + 1) % choices.count]
    }
}
