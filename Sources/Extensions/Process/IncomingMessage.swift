import ExtensionProtocol
import JSONTree

/// One line from an extension's stdout, classified (pure: no state, no I/O): blank, a request
/// or notification to the host, an answer to one of the host's requests, or a protocol
/// violation with its reason.
enum IncomingMessage {
    case blank
    /// A request (with `id`) or a notification (without).
    case call(method: String, params: JSONValue?, id: JSONValue?)
    /// The answer to the host's request `id`.
    case answer(id: Int, Result<JSONValue, ExtensionError>)
    case violation(String)

    /// The deepest JSON accepted: a view's 64 levels inside an answer's envelope, with room.
    static let maximumDepth = 2 * 64 + 24

    /// Classifies `bytes` (one line without its newline; a trailing CR is dropped). Also
    /// returns what `--debug` may log of it (see `debugText`) when `debug`, else "".
    static func parse(_ bytes: [UInt8], maximumBytes: Int, debug: Bool = true) -> (message: IncomingMessage, debugText: String) {
        var line = bytes[...]
        if line.last == UInt8(ascii: "\r") { line = line.dropLast() }
        if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return (.blank, "") }  // blank lines are allowed
        let raw = debug ? RPCMessage.printable(String(decoding: line.prefix(2000), as: UTF8.self), limit: 2000) : ""
        let value: JSONValue
        do {
            value = try JSONParser(maximumBytes: maximumBytes, maximumDepth: maximumDepth).parse(Array(line))
        } catch {
            // It may be a download whose headers the host cannot pick out: not shown then.
            let shown = raw.contains("\"headers\"") ? "(\(line.count) bytes, not shown: they mention headers)" : raw
            return (.violation("sent a line that is not JSON (\(error.description))\(quoted(line))"), shown)
        }
        var message = classify(value)
        if case .violation(let reason) = message { message = .violation(reason + quoted(line)) }
        return (message, debug ? debugText(message, raw: raw) : "")
    }

    /// The offending line for a protocol error's message, so the author sees what was wrong
    /// without `--debug`: its start, made printable and cut (`: "Traceback (most…"`); a line
    /// that mentions headers (a download's secrets, maybe) is only counted.
    static func quoted(_ line: ArraySlice<UInt8>) -> String {
        let start = String(decoding: line.prefix(400), as: UTF8.self)
        if start.contains("headers") || line.count > 400 && String(decoding: line, as: UTF8.self).contains("headers") {
            return " (a line of \(line.count) bytes, not shown: it mentions headers)"
        }
        return ": \"\(RPCMessage.printable(start, limit: 100))\""
    }

    static func classify(_ value: JSONValue) -> IncomingMessage {
        guard case .object(let message) = value else { return .violation("sent \(value.shortDescription), not a JSON-RPC message object") }
        guard message["jsonrpc"] == .string(ExtensionProtocol.jsonrpc) else { return .violation("sent a message without \"jsonrpc\": \"2.0\"") }
        if case .string(let method)? = message["method"] {
            return .call(method: method, params: message["params"], id: message["id"])
        }
        guard case .integer(let id)? = message["id"] else {
            return .violation("sent a message that is neither a request, a notification nor an answer with an integer id")
        }
        if let value = message["result"], message["error"] == nil { return .answer(id: id, .success(value)) }
        guard case .object(let error)? = message["error"], message["result"] == nil else {
            return .violation("sent an answer to \(id) without exactly one of \"result\" and \"error\"")
        }
        var code = 0
        if case .integer(let number)? = error["code"] { code = number }
        var text = "no message"
        if case .string(let given)? = error["message"] { text = RPCMessage.printable(given, limit: 200) }
        return .answer(id: id, .failure(.remote(code: code, message: text)))
    }

    /// The line as `--debug` logs it: as sent, except a `download`'s header values, which
    /// never reach the log (`"headers":{"Authorization":"***"}`; headers of another shape are
    /// `"***"` whole).
    static func debugText(_ message: IncomingMessage, raw: String) -> String {
        guard case .call("download", .object(let params)?, let id) = message, let headers = params["headers"] else { return raw }
        let hidden: JSONValue
        if case .object(let object) = headers {
            hidden = .object(JSONObject(members: object.members.map { (key: $0.key, value: JSONValue.string("***")) }))
        } else {
            hidden = .string("***")  // not an object (an error answer follows), hidden all the same
        }
        let redacted = JSONObject(members: params.members.map { $0.key == "headers" ? (key: $0.key, value: hidden) : $0 })
        var members: [(key: String, value: JSONValue)] = [("jsonrpc", .string(ExtensionProtocol.jsonrpc))]
        if let id { members.append(("id", id)) }
        members += [("method", .string("download")), ("params", .object(redacted))]
        return RPCMessage.printable(JSONValue.object(JSONObject(members: members)).jsonText, limit: 2000)
    }
}
