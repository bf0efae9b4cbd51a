import JSONTree
import TerminalUI
import WidgetCore
import Widgets

/// Option schemas (`widgets[i].options`): each type's keys, bounds and default, mapped onto
/// the host's `OptionSpec`.
extension ManifestReader {
    mutating func options(_ value: JSONValue, path: String, nested: Bool) -> [OptionSpec] {
        guard case .object(let object) = value else {
            fail(path, "expected an object of options keyed by name, found \(value.shortDescription)")
            return []
        }
        guard object.count <= ExtensionManifestParser.maximumOptions else {
            fail(path, "has \(object.count) options; at most \(ExtensionManifestParser.maximumOptions)")
            return []
        }
        var specs: [OptionSpec] = []
        for (name, spec) in object.members {
            let at = Self.join(path, name)
            guard ExtensionManifestParser.isValidName(name) else {
                fail(at, "\(JSONValue.string(name).shortDescription) is not an option name")
                continue
            }
            if let option = option(name: name, spec, path: at, nested: nested) { specs.append(option) }
        }
        return specs
    }

    mutating func option(name: String, _ value: JSONValue, path: String, nested: Bool) -> OptionSpec? {
        guard let object = object(value, path: path, known: [
            "type", "default", "doc", "example", "required", "min", "max", "values", "schemes", "refreshInterval", "fields", "dynamic"]) else {
            return nil
        }
        let before = issues.count + extra
        guard let typeName = string(object, "type", path: path, required: true) else { return nil }
        let doc = string(object, "doc", path: path) ?? ""
        let example = string(object, "example", path: path)
        let required = bool(object, "required", path: path) ?? false
        var allowed: [String] = ["type", "default", "doc", "example", "required"]
        // A picker fills a one-line value: not a boolean, a list, a map, nor an object's field.
        if !nested, !["boolean", "stringList", "stringMap", "objectList"].contains(typeName) { allowed.append("dynamic") }
        let dynamic = allowed.contains("dynamic") ? bool(object, "dynamic", path: path) ?? false : false
        let type: OptionType
        switch typeName {
        case "string": type = .string
        case "boolean": type = .bool
        case "timeZone": type = .timeZone
        case "stringList": type = .stringList
        case "stringMap": type = .stringMap
        case "integer", "seconds":
            allowed += ["min", "max"] + (typeName == "seconds" ? ["refreshInterval"] : [])
            let low = integer(object, "min", path: path, in: Int.min...Int.max) ?? (typeName == "seconds" ? 0 : Int.min)
            let high = integer(object, "max", path: path, in: Int.min...Int.max) ?? Int.max
            guard low <= high else {
                fail(path + ".min", "is above max")
                return nil
            }
            type = typeName == "integer" ? .integer(low...high)
                : .seconds(low...high, refreshInterval: bool(object, "refreshInterval", path: path) ?? false)
        case "number":
            allowed += ["min", "max"]
            let low = number(object, "min", path: path) ?? -Double.infinity
            let high = number(object, "max", path: path) ?? Double.infinity
            guard low <= high else {
                fail(path + ".min", "is above max")
                return nil
            }
            type = .number(low...high)
        case "enum":
            allowed.append("values")
            guard let values = strings(object, "values", path: path, limit: 64), !values.isEmpty else {
                if object["values"] == nil || issues.count + extra == before { fail(path + ".values", "is required: the allowed strings") }
                return nil
            }
            type = .oneOf(values)
        case "url":
            allowed.append("schemes")
            type = .url(schemes: strings(object, "schemes", path: path, limit: 8) ?? ["http", "https"])
        case "objectList":
            allowed.append("fields")
            guard !nested else {
                fail(path + ".type", "an objectList cannot hold another objectList")
                return nil
            }
            guard let fields = object["fields"] else {
                fail(path + ".fields", "is required: the options of each object")
                return nil
            }
            type = .objectList(options(fields, path: path + ".fields", nested: true))
        default:
            fail(path + ".type", "unknown option type \(JSONValue.string(typeName).shortDescription) (expected one of \(Self.optionTypes.joined(separator: ", ")))")
            return nil
        }
        for key in object.keys where !allowed.contains(key) {
            fail(Self.join(path, key), "does not apply to an option of type \(typeName)")
        }
        var defaultValue: WidgetOptions.Value?
        if let value = object["default"] {
            // A first look with `OptionType`'s own checks (kind, bounds, choices, a URL's
            // scheme): the host checks the default in full when it registers the kind
            // (`WidgetManifest.problems`, which names it `NAME/KIND: default of 'z': …`).
            var problems = OptionReport()
            defaultValue = OptionDecoder(isKnownTimeZone: { _ in true }, minimumReloadSeconds: 1, checksContents: false)
                .decode(value, as: type, at: .root, into: &problems)
            if defaultValue == nil { fail(path + ".default", Self.problem(default: value, as: type, typeName: typeName)) }
            if required { fail(path + ".required", "an option with a default is not required") }
        }
        guard issues.count + extra == before else { return nil }
        return OptionSpec(name: name, type: type, required: required, defaultValue: defaultValue, doc: doc, example: example,
                          dynamic: dynamic)
    }

    /// Why `value` is not a valid default of `type` (named `typeName` in the manifest): a number
    /// or choice out of bounds as the config check words it (`expected an integer in 1…180,
    /// got 500`, `expected one of 'a', 'b', got "c"`); anything else `"yes" is not a valid boolean`.
    static func problem(default value: JSONValue, as type: OptionType, typeName: String) -> String {
        switch (type, value) {
        case (.integer, .integer), (.seconds, .integer), (.number, .integer), (.number, .number), (.oneOf, .string):
            "expected \(type.expectation), got \(value.shortDescription)"
        default:
            "\(value.shortDescription) is not a valid \(typeName)"
        }
    }
}
