import FoundationEssentials

/// An `mqtt` panel's options, checked and resolved: the broker, the subscriptions, the rows,
/// and the credentials taken from the environment.
struct MQTTPanel: Sendable {
    /// Subscriptions one panel may make.
    static let maximumTopics = 16

    var broker: MQTTBroker
    var topics: [MQTTTopicFilter]
    var fields: [MQTTField]
    /// Never shown or logged: they go to libmosquitto only.
    var username: String?
    var password: String?
    var qos: Int
    var caFile: String?

    init(_ options: MQTTOptions, environment: [String: String]) throws {
        broker = try MQTTBroker(options.broker)
        guard (1...Self.maximumTopics).contains(options.topics.count) else {
            throw OptionError("topics: give 1 to \(Self.maximumTopics) topics")
        }
        topics = try options.topics.enumerated().map { index, text in
            do { return try MQTTTopicFilter(text) } catch { throw OptionError("topics[\(index)]: \(error)") }
        }
        fields = try options.fields.enumerated().map { index, field in
            let pointer: JSONPointer
            do { pointer = try JSONPointer(field.pointer) } catch { throw OptionError("fields[\(index)].pointer: \(error)") }
            var topic: MQTTTopicFilter?
            if !field.topic.isEmpty {
                do { topic = try MQTTTopicFilter(field.topic) } catch { throw OptionError("fields[\(index)].topic: \(error)") }
            }
            return MQTTField(label: MQTTText.clean(field.label, limit: 60), topic: topic, pointer: pointer, format: field.format)
        }
        username = try options.username.map { try Self.resolve($0, option: "username", environment: environment, literalAllowed: true) }
        password = try options.password.map { try Self.resolve($0, option: "password", environment: environment, literalAllowed: false) }
        if password != nil, username == nil { throw OptionError("password: give a username too") }
        qos = min(max(0, options.qos), 1)
        caFile = options.caFile
        if caFile != nil, !broker.tls { throw OptionError("caFile: only for an mqtts:// broker") }
    }

    /// `"$NAME"` → the environment's value. An error names the option and the variable, never a value.
    private static func resolve(_ text: String, option: String, environment: [String: String],
                                literalAllowed: Bool) throws -> String {
        let name = String(text.dropFirst())
        guard text.hasPrefix("$"), !name.isEmpty, name.utf8.count <= 256,
              name.utf8.first.map({ !(0x30...0x39).contains($0) }) == true,
              name.unicodeScalars.allSatisfy({ $0.isASCII && ($0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) })
        else {
            if literalAllowed { return text }
            throw OptionError("\(option): give \"$NAME\", the environment variable that holds it; a \(option) is never written in a config")
        }
        guard let value = environment[name] else { throw OptionError("\(option): the environment variable \(name) is not set") }
        guard !value.utf8.contains(0) else { throw OptionError("\(option): the environment variable \(name) holds a NUL byte") }
        return value
    }
}
