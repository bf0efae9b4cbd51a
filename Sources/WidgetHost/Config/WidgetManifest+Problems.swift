import JSONTree
import WidgetCore
import Widgets

extension WidgetManifest {
    /// Mistakes in the manifest itself (a default that does not fit its type, say); empty for
    /// a well-formed one. The catalogue's tests assert it for every built-in widget.
    public var problems: [String] {
        var found: [String] = []
        if kind.isEmpty { found.append("the kind name is empty") }
        if kind == BuiltinWidgets.stack.manifest.kind { found.append("'\(kind)' is built in and cannot be registered") }
        if supportedFamilies.isEmpty { found.append("\(kind): supports no family") }
        if !supportedFamilies.contains(defaultFamily) {
            found.append("\(kind): default family \(defaultFamily) is not a supported family")
        }
        found += Self.problems(of: options, in: kind)
        if let titleOption, option(named: titleOption) == nil {
            found.append("\(kind): title option '\(titleOption)' is not an option")
        }
        if let pushSourceOption {
            if case .url? = option(named: pushSourceOption)?.type {} else {
                found.append("\(kind): push source '\(pushSourceOption)' is not a URL option")
            }
        }
        if usesNetwork, !pausesWithAutomaticReloads {
            found.append("\(kind): a widget that uses the network pauses with automatic reloads")
        }
        for group in exactlyOneOf {
            if group.count < 2 { found.append("\(kind): an exactly-one-of group needs two options or more") }
            for name in group {
                guard let option = option(named: name) else {
                    found.append("\(kind): exactly-one-of option '\(name)' is not an option")
                    continue
                }
                if option.required || option.defaultValue != nil {
                    found.append("\(kind): exactly-one-of option '\(name)' is required or has a default")
                }
            }
        }
        var keys: Set<String> = []
        for action in actions {
            if action.key.count != 1 || action.key.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F }) {
                found.append("\(kind): action key '\(action.key)' is not one printable character")
            }
            if !keys.insert(action.key).inserted { found.append("\(kind): action key '\(action.key)' is listed twice") }
            if WidgetAction.reservedKeys.contains(action.key), action.key != WidgetAction.reloadKey {
                found.append("\(kind): action key '\(action.key)' is one of the host's own keys")
            }
            if !(action.timeoutSeconds > 0 && action.timeoutSeconds <= 3600) {
                found.append("\(kind): action '\(action.key)' needs a timeout of more than 0 and at most 3600 seconds")
            }
        }
        return found
    }

    private static func problems(of options: [OptionSpec], in owner: String) -> [String] {
        var found: [String] = []
        var names: Set<String> = []
        for option in options {
            if option.name.isEmpty { found.append("\(owner): an option has no name") }
            if !names.insert(option.name).inserted { found.append("\(owner): option '\(option.name)' is listed twice") }
            if let value = option.defaultValue {
                var report = OptionReport()
                let decoder = OptionDecoder(isKnownTimeZone: { _ in true }, minimumReloadSeconds: 1)
                if decoder.decode(JSONValue(value), as: option.type, at: ConfigPath(), into: &report) == nil {
                    let problem = report.errors.map(\.message).joined(separator: "; ")
                    found.append("\(owner): default of '\(option.name)': \(problem)")
                }
            }
            if option.required, option.defaultValue != nil {
                found.append("\(owner): option '\(option.name)' is required and has a default")
            }
            switch option.type {
            case .bool, .stringList, .stringMap, .objectList:
                if option.dynamic { found.append("\(owner): option '\(option.name)' cannot be dynamic (a picker fills one-line values)") }
            default:
                break
            }
            if case .objectList(let fields) = option.type {
                found += problems(of: fields, in: "\(owner).\(option.name)")
                for field in fields where field.dynamic {
                    found.append("\(owner).\(option.name): field '\(field.name)' cannot be dynamic (a picker fills an option, not a field)")
                }
            }
        }
        return found
    }
}
