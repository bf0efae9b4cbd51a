import JSONTree
import WidgetCore

/// Converts a JSON value to an option value of a given type, or nil when it does not fit: a
/// first check of a manifest's defaults (the host's config validator checks them again, with
/// time zones and URLs in full, through `WidgetManifest.problems`).
enum OptionValueReader {
    static func value(_ json: JSONValue, as type: OptionType) -> WidgetOptions.Value? {
        switch (type, json) {
        case (.string, .string(let text)), (.timeZone, .string(let text)):
            return .string(text)
        case (.url(let schemes), .string(let text)):
            guard let colon = text.firstIndex(of: ":"), schemes.contains(String(text[..<colon]).lowercased()) else { return nil }
            return .string(text)
        case (.oneOf(let values), .string(let text)):
            return values.contains(text) ? .string(text) : nil
        case (.integer(let range), .integer(let number)), (.seconds(let range, _), .integer(let number)):
            return range.contains(number) ? .integer(number) : nil
        case (.number(let range), .integer(let number)):
            return range.contains(Double(number)) ? .number(Double(number)) : nil
        case (.number(let range), .number(let number)):
            return number.isFinite && range.contains(number) ? .number(number) : nil
        case (.bool, .bool(let flag)):
            return .bool(flag)
        case (.stringList, .array(let elements)):
            var out: [WidgetOptions.Value] = []
            for element in elements {
                guard case .string(let text) = element else { return nil }
                out.append(.string(text))
            }
            return .list(out)
        case (.stringMap, .object(let object)):
            var out: [String: WidgetOptions.Value] = [:]
            for (key, member) in object.members {
                guard case .string(let text) = member else { return nil }
                out[key] = .string(text)
            }
            return .object(out)
        case (.objectList(let fields), .array(let elements)):
            var out: [WidgetOptions.Value] = []
            for element in elements {
                guard case .object(let object) = element else { return nil }
                var members: [String: WidgetOptions.Value] = [:]
                for (key, member) in object.members {
                    guard let field = fields.first(where: { $0.name == key }), let value = value(member, as: field.type) else { return nil }
                    members[key] = value
                }
                out.append(.object(members))
            }
            return .list(out)
        default:
            return nil
        }
    }
}
