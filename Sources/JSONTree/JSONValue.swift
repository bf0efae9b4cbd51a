/// A parsed JSON document: the value tree the config validator walks.
///
/// Objects keep their keys in document order (so errors are listed in the order a reader
/// sees them); numbers keep whether they were written as integers. An integer literal too
/// large for `Int` becomes `.number`.
public enum JSONValue: Sendable, Equatable {
    case object(JSONObject)
    case array([JSONValue])
    case string(String)
    case integer(Int)
    case number(Double)
    case bool(Bool)
    case null

    /// A short phrase naming the value for error messages, e.g. `"ten"`, `12`, `an object`.
    ///
    /// Strings are quoted and cut to 40 characters so a hostile value cannot flood the
    /// terminal; control characters are escaped.
    public var shortDescription: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string(let text): return JSONValue.quoted(text, limit: 40)
        case .integer(let value): return String(value)
        case .number(let value): return JSONValue.render(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }

    /// The value as compact JSON text (keys in document order).
    public var jsonText: String {
        switch self {
        case .object(let object):
            let members = object.members.map { "\(JSONValue.quoted($0.key, limit: nil)):\($0.value.jsonText)" }
            return "{" + members.joined(separator: ",") + "}"
        case .array(let elements):
            return "[" + elements.map(\.jsonText).joined(separator: ",") + "]"
        case .string(let text): return JSONValue.quoted(text, limit: nil)
        case .integer(let value): return String(value)
        case .number(let value): return JSONValue.render(value)
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }

    public static func render(_ value: Double) -> String {
        // Integral doubles print as "10.0" so the reader sees they were not integers.
        String(value)
    }

    /// Whether `quoted` writes `scalar` as `\uXXXX`: C0 and C1 controls, DEL, and the
    /// invisible bidi controls and separators (U+202E would reverse the rest of the line a
    /// user reads in an error message).
    static func escapesInQuotes(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: true
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: true
        default: false
        }
    }

    /// JSON-quotes `text`, escaping quotes, backslashes, control characters and bidi
    /// controls; with a `limit`, cuts it to that many scalars and an ellipsis.
    public static func quoted(_ text: String, limit: Int?) -> String {
        var out = "\""
        var count = 0
        for scalar in text.unicodeScalars {
            if let limit, count == limit {
                out += "…"
                break
            }
            count += 1
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if JSONValue.escapesInQuotes(scalar) {
                    let hex = String(scalar.value, radix: 16, uppercase: false)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
