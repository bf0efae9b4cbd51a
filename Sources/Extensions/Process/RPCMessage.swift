import ExtensionProtocol
import JSONTree
import WidgetCore

/// Building JSON-RPC 2.0 messages, one line each (compact JSON has no raw newline: strings
/// escape theirs).
enum RPCMessage {
    /// JSON-RPC's "method not found".
    static let methodNotFound = RPCErrorCode.methodNotFound

    static func request(id: Int, method: String, params: JSONValue?) -> String {
        var members: [(key: String, value: JSONValue)] = [("jsonrpc", .string(ExtensionProtocol.jsonrpc)), ("id", .integer(id)), ("method", .string(method))]
        if let params { members.append(("params", params)) }
        return JSONValue.object(JSONObject(members: members)).jsonText + "\n"
    }

    static func result(id: JSONValue, _ result: JSONValue) -> String {
        JSONValue.object(JSONObject(members: [("jsonrpc", .string(ExtensionProtocol.jsonrpc)), ("id", id), ("result", result)])).jsonText + "\n"
    }

    static func error(id: JSONValue, code: Int, message: String) -> String {
        let error = JSONValue.object(JSONObject(members: [("code", .integer(code)), ("message", .string(message))]))
        return JSONValue.object(JSONObject(members: [("jsonrpc", .string(ExtensionProtocol.jsonrpc)), ("id", id), ("error", error)])).jsonText + "\n"
    }

    /// `{"a": 1}` from pairs.
    static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(JSONObject(members: members.map { (key: $0.0, value: $0.1) }))
    }

    /// An option value as JSON (object keys sorted, so a message is the same every time).
    static func json(_ value: WidgetOptions.Value) -> JSONValue {
        switch value {
        case .string(let text): .string(text)
        case .integer(let number): .integer(number)
        case .number(let number): number.isFinite ? .number(number) : .null
        case .bool(let flag): .bool(flag)
        case .list(let items): .array(items.map(json))
        case .object(let members): object(members.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) })
        }
    }

    static func json(_ options: WidgetOptions) -> JSONValue {
        object(options.values.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) })
    }

    /// Text from an extension made fit for one log or panel line: control characters become
    /// spaces, at most `limit` characters.
    static func printable(_ text: String, limit: Int = 300) -> String {
        var out = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            count += 1
            switch scalar.value {
            case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029:
                out += " "
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
