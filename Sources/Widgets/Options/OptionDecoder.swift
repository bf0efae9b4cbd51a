import JSONTree
import WidgetCore

/// Turns a panel's `options` (a JSON value from a config file or the command line) into the
/// typed `WidgetOptions` its provider reads, checked against the options of the widget's
/// manifest. The one place where option values are decoded.
///
/// Every problem is reported with its key path, down into lists and objects
/// (`panels[0].options.fields[2].pointer`). Options missing from the document get their
/// defaults; a `.seconds(_, refreshInterval: true)` option below `minimumReloadSeconds` is
/// raised to it (with a warning when the document gave the value).
public struct OptionDecoder: Sendable {
    public var isKnownTimeZone: @Sendable (String) -> Bool
    public var minimumReloadSeconds: Int
    /// False: only the kind of each value, bounds and choices (`OptionType.problem`'s
    /// `contents`); objects in lists neither need their required options nor get defaults.
    public var checksContents = true

    /// - Parameters:
    ///   - isKnownTimeZone: whether a well-formed zone name exists (`OptionType.knownTimeZones`).
    ///   - minimumReloadSeconds: what refresh intervals are raised to.
    ///   - checksContents: false for the first look at an extension manifest's defaults.
    public init(isKnownTimeZone: @escaping @Sendable (String) -> Bool, minimumReloadSeconds: Int, checksContents: Bool = true) {
        self.isKnownTimeZone = isKnownTimeZone
        self.minimumReloadSeconds = minimumReloadSeconds
        self.checksContents = checksContents
    }

    /// Decodes an object of options against `specs`; nil when `value` is not an object.
    ///
    /// - Parameter owner: names whose options these are in messages (`'clock'`).
    public func decode(_ value: JSONValue, specs: [OptionSpec], owner: String, at path: ConfigPath,
                into report: inout OptionReport) -> [String: WidgetOptions.Value]? {
        guard case .object(let object) = value else {
            report.errors.append(ConfigDiagnostic(path: path, message: "expected an object of options, got \(value.shortDescription)"))
            return nil
        }
        let names = specs.map(\.name)
        for key in object.keys where !names.contains(key) {
            let known = names.isEmpty ? "\(owner) has no options" : "\(owner) has " + names.joined(separator: ", ")
            let hint = EditDistance.suggestion(for: key, among: names).map { "did you mean '\($0)'?" } ?? "(\(known))"
            report.errors.append(ConfigDiagnostic(path: path.appending(key: key), message: "unknown option; \(hint)"))
        }
        var filled: [String: WidgetOptions.Value] = [:]
        for spec in specs {
            let optionPath = path.appending(key: spec.name)
            guard let given = object[spec.name] else {
                if !checksContents {
                    // A first look: what is missing is the host's to report.
                } else if spec.required {
                    report.errors.append(ConfigDiagnostic(path: optionPath,
                        message: "missing required option: \(spec.doc) (\(spec.type.expectation))"))
                } else if let defaultValue = spec.defaultValue {
                    filled[spec.name] = raised(defaultValue, type: spec.type, at: optionPath, warn: false, into: &report)
                }
                continue
            }
            if let decoded = decode(given, as: spec.type, at: optionPath, into: &report) {
                filled[spec.name] = raised(decoded, type: spec.type, at: optionPath, warn: true, into: &report)
            }
        }
        return filled
    }

    /// Decodes one value of `type`; nil (with the problems reported) when it does not fit.
    public func decode(_ value: JSONValue, as type: OptionType, at path: ConfigPath,
                into report: inout OptionReport) -> WidgetOptions.Value? {
        if let problem = type.problem(with: value, isKnownTimeZone: isKnownTimeZone, contents: checksContents) {
            report.errors.append(ConfigDiagnostic(path: path, message: problem))
            return nil
        }
        let before = report.errors.count
        let decoded: WidgetOptions.Value?
        switch (type, value) {
        case (.number, .integer(let integer)): decoded = .number(Double(integer))
        case (.number, .number(let number)): decoded = .number(number)
        case (_, .string(let text)): decoded = .string(text)
        case (_, .integer(let integer)): decoded = .integer(integer)
        case (_, .bool(let flag)): decoded = .bool(flag)
        case (.stringList, .array(let items)):
            decoded = .list(items.enumerated().compactMap { index, item in
                decode(item, as: .string, at: path.appending(index: index), into: &report)
            })
        case (.stringMap, .object(let object)):
            var members: [String: WidgetOptions.Value] = [:]
            for (key, item) in object.members {
                let itemPath = path.appending(key: key)
                if checksContents, key.isEmpty || key.unicodeScalars.count > OptionType.maximumKeyLength || key.unicodeScalars.contains("\u{0}") {
                    report.errors.append(ConfigDiagnostic(path: itemPath,
                        message: "expected a key of 1 to \(OptionType.maximumKeyLength) characters without NUL"))
                } else if let text = decode(item, as: .string, at: itemPath, into: &report) {
                    members[key] = text
                }
            }
            decoded = .object(members)
        case (.objectList(let fields), .array(let items)):
            decoded = .list(items.enumerated().compactMap { index, item in
                decode(item, specs: fields, owner: "each element", at: path.appending(index: index), into: &report)
                    .map(WidgetOptions.Value.object)
            })
        default:
            decoded = nil
        }
        return report.errors.count == before ? decoded : nil
    }

    /// Raises a refresh interval below the minimum reload interval to it.
    private func raised(_ value: WidgetOptions.Value, type: OptionType, at path: ConfigPath,
                        warn: Bool, into report: inout OptionReport) -> WidgetOptions.Value {
        guard case .seconds(_, refreshInterval: true) = type, case .integer(let seconds) = value,
              seconds < minimumReloadSeconds else { return value }
        if warn {
            report.warnings.append(ConfigDiagnostic(path: path,
                message: "\(seconds) is below minimumReloadSeconds; raised to \(minimumReloadSeconds)"))
        }
        return .integer(minimumReloadSeconds)
    }
}

extension JSONValue {
    /// The JSON form of an option value (defaults in `widgethost widgets`, manifest checks).
    public init(_ value: WidgetOptions.Value) {
        switch value {
        case .string(let text): self = .string(text)
        case .integer(let integer): self = .integer(integer)
        case .number(let number): self = .number(number)
        case .bool(let flag): self = .bool(flag)
        case .list(let items): self = .array(items.map(JSONValue.init))
        case .object(let members):
            self = .object(JSONObject(members: members.sorted { $0.key < $1.key }.map { ($0.key, JSONValue($0.value)) }))
        }
    }
}
