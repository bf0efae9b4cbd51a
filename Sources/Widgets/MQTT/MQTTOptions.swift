import WidgetCore

/// The `mqtt` widget's options (DESIGN.md §12), declared once: the manifest's entries and
/// what its provider reads.
public struct MQTTOptions: OptionSchema, Equatable {
    /// One row: a label, which topic it reads, where its value is in the payload, how it is
    /// shown (`http-json`'s fields plus `topic`).
    public struct Field: OptionSchema, Equatable {
        public var label = ""
        /// A topic or a filter (`+`, `#`); empty: any topic the panel subscribes to. The
        /// latest message on a matching topic gives the value.
        public var topic = ""
        /// The value's JSON Pointer; empty: the whole payload (a non-JSON payload as text).
        public var pointer = ""
        public var format = HTTPJSONFormat.text

        public init() {}

        public static let fields: [OptionField<Self>] = [
            OptionField(\.label, "label", .string, required: true, doc: "the row's label", example: "Kitchen"),
            OptionField(\.topic, "topic", .string, doc: "the topic (or filter) it reads (default: any of the panel's)",
                        example: "home/kitchen/climate"),
            OptionField(\.pointer, "pointer", .jsonPointer,
                        doc: "JSON Pointer to the value in the payload (default: the whole payload)", example: "/temperature"),
            OptionField(\.format, "format", doc: "how the value is shown", example: "number"),
        ]
    }

    /// `mqtt://host:port` or `mqtts://host:port` (TLS).
    public var broker = "mqtt://127.0.0.1:1883"
    /// Subscriptions, with the wildcards `+` (one level) and `#` (the rest) (required).
    public var topics: [String] = []
    /// The rows; none: a row per topic received, its payload as text.
    public var fields: [Field] = []
    /// `"$NAME"`: from the environment.
    public var username: String?
    /// Only `"$NAME"`, from the environment: never written in a config, logged or shown.
    public var password: String?
    public var qos = 0
    /// The certificate authorities `mqtts://` trusts (PEM); default: the system's.
    public var caFile: String?

    public init() {}

    public static let fields: [OptionField<Self>] = [
        OptionField(\.broker, "broker", .url(schemes: ["mqtt", "mqtts"]),
                    doc: "the broker (mqtts: TLS)", example: "mqtt://127.0.0.1:1883"),
        OptionField(\.topics, "topics", .stringList, required: true,
                    doc: "topics to subscribe to (+: one level, #: the rest)", example: "[\"home/+/climate\"]"),
        OptionField(\.fields, "fields", objects: Field.self,
                    doc: "rows: label, topic, pointer, format (default: one per topic)"),
        OptionField(\.username, "username", .string, doc: "user name (\"$NAME\": from the environment)", example: "$MQTT_USER"),
        OptionField(\.password, "password", .string, doc: "\"$NAME\": the variable holding the password (never shown)",
                    example: "$MQTT_PASSWORD"),
        OptionField(\.qos, "qos", .integer(0...1), doc: "subscription QoS, 0 or 1", example: "1"),
        OptionField(\.caFile, "caFile", .string, doc: "PEM file of authorities mqtts trusts (default: the system's)",
                    example: "/etc/mosquitto/ca.crt"),
    ]
}
