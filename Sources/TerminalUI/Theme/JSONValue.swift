#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A parsed JSON value tree, so theme files can be validated key by key.
///
/// `Codable` structs ignore unknown keys and stop at the first error; the theme parser
/// walks this tree instead and reports every problem with its key path.
enum JSONValue: Hashable, Sendable, Decodable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// Parses `data`; the error message is the decoder's, for a "not valid JSON" report.
    static func parse(_ data: Data) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: data)
    }

    /// The value as it would appear in the file (strings quoted, whole numbers without ".0").
    var description: String {
        switch self {
        case .null: "null"
        case let .bool(b): "\(b)"
        case let .number(n): n == n.rounded() && abs(n) < 1e15 ? "\(Int(n))" : "\(n)"
        case let .string(s): "\"\(s)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
