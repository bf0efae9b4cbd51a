import JSONTree
import WidgetCore

/// What a message's payload is, read once at arrival and bounded: its text for a row (clean,
/// cut), its JSON value when it is JSON, or why it is not shown. A payload over
/// `maximumBytes` is not decoded; one that is not UTF-8 is shown with `�` and not parsed.
struct MQTTPayload: Sendable, Equatable {
    /// The largest payload read (decoded, parsed); a larger one is named, not kept.
    static let maximumBytes = 64 * 1024
    static let parser = JSONParser(maximumBytes: maximumBytes, maximumDepth: 32)

    var text: String
    var json: JSONValue?
    var problem: String?

    init(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count <= Self.maximumBytes else {
            text = ""
            json = nil
            problem = "payload of \(ByteCountText.readable(Double(bytes.count))) is over the \(ByteCountText.exact(Self.maximumBytes)) limit"
            return
        }
        guard let decoded = String(validating: bytes, as: UTF8.self) else {
            text = MQTTText.clean(String(decoding: bytes, as: UTF8.self))
            json = nil
            problem = "payload is not UTF-8 (\(ByteCountText.readable(Double(bytes.count))))"
            return
        }
        problem = nil
        if let value = try? Self.parser.parse(Array(bytes)) {
            json = value
            text = MQTTText.clean(HTTPJSONFormat.text(value))
        } else {
            json = nil
            text = MQTTText.clean(decoded)
        }
    }

    /// The value `pointer` names: in the JSON, or the whole text when the payload is not JSON
    /// and the pointer is the whole document. Objects and arrays become their (cut) JSON text,
    /// strings are cleaned, so what a field keeps is small and inert.
    func value(at pointer: JSONPointer) -> JSONValue? {
        guard problem == nil || !text.isEmpty else { return nil }
        guard let json else { return pointer.tokens.isEmpty ? .string(text) : nil }
        guard let found = pointer.resolve(in: json) else { return nil }
        switch found {
        case .string(let string): return .string(MQTTText.clean(string))
        case .object, .array: return .string(MQTTText.clean(HTTPJSONFormat.text(found)))
        default: return found
        }
    }
}
