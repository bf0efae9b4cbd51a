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

    /// Why `json` is not a valid default of `type` (named `typeName` in the manifest), worded as
    /// the config check words it: `expected an integer in 1…180, got 500`, `expected one of
    /// 'a', 'b', got "c"`; other mismatches: `"yes" is not a valid boolean`.
    static func problem(_ json: JSONValue, as type: OptionType, typeName: String) -> String {
        let got = json.shortDescription
        switch (type, json) {
        case (.integer(let range), .integer), (.seconds(let range, _), .integer):
            return "expected an integer\(describe(range)), got \(got)"
        case (.number(let range), .integer), (.number(let range), .number):
            let low = range.lowerBound.isFinite ? " ≥ \(format(range.lowerBound))" : ""
            let high = range.upperBound.isFinite ? " ≤ \(format(range.upperBound))" : ""
            let bounds = !low.isEmpty && !high.isEmpty ? " in \(format(range.lowerBound))…\(format(range.upperBound))" : low + high
            return "expected a number\(bounds), got \(got)"
        case (.oneOf(let values), .string):
            return "expected one of " + values.map { "'\($0)'" }.joined(separator: ", ") + ", got \(got)"
        default:
            return "\(got) is not a valid \(typeName)"
        }
    }

    private static func describe(_ range: ClosedRange<Int>) -> String {
        switch (range.lowerBound == Int.min, range.upperBound == Int.max) {
        case (true, true): ""
        case (false, true): " ≥ \(range.lowerBound)"
        case (true, false): " ≤ \(range.upperBound)"
        case (false, false): " in \(range.lowerBound)…\(range.upperBound)"
        }
    }

    private static func format(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}
