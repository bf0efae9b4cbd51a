import WidgetCore

/// The `http-json` widget's options, declared once: the manifest's entries and what its
/// provider reads.
public struct HTTPJSONOptions: OptionSchema, Equatable {
    /// One row: a label, the JSON Pointer to its value, how the value is shown.
    public struct Field: OptionSchema, Equatable {
        /// The row's label (required).
        public var label = ""
        /// The pointer's text (required), parsed by the widget (`HTTPJSONWidget.parse`).
        public var pointer = ""
        public var format = HTTPJSONFormat.text
        public var alertAbove: Double?
        public var alertBelow: Double?

        public init() {}

        public static let fields: [OptionField<Self>] = [
            OptionField(\.label, "label", .string, required: true, doc: "the row's label", example: "Price"),
            OptionField(\.pointer, "pointer", .jsonPointer, required: true,
                        doc: "JSON Pointer (RFC 6901; ~1 for '/', ~0 for '~') to the value", example: "/data/0/price"),
            OptionField(\.format, "format", doc: "how the value is shown", example: "number"),
            OptionField(\.alertAbove, "alertAbove", .number(-1e15...1e15), doc: "a number above this is an alert", example: "100"),
            OptionField(\.alertBelow, "alertBelow", .number(-1e15...1e15), doc: "a number below this is an alert", example: "1"),
        ]
    }

    /// The JSON document (required).
    public var url = ""
    public var headers: [String: String]?
    /// The rows (required).
    public var fields: [Field] = []
    public var refreshSeconds = 60
    public var session = HTTPJSONWidget.defaultSession
    /// Where the panel leads (`o`), e.g. the page the JSON describes.
    public var link: String?

    public init() {}

    public static let fields: [OptionField<Self>] = [
        OptionField(\.url, "url", .url(schemes: ["http", "https"]), required: true,
                    doc: "the JSON document", example: "https://api.example.com/status"),
        OptionField(\.headers, "headers", .stringMap, doc: "request headers (\"$NAME\": from the environment, never shown)"),
        OptionField(\.fields, "fields", objects: Field.self, required: true, doc: "the rows: label, pointer, format"),
        OptionField(\.refreshSeconds, "refreshSeconds", .seconds(1...86_400, refreshInterval: true),
                    doc: "seconds between fetches", example: "300"),
        OptionField(\.session, "session", .string,
                    doc: "background session identifier (letters, digits, . _ -)", example: "prices"),
        OptionField(\.link, "link", .url(schemes: ["http", "https"]),
                    doc: "where o on the panel leads (a page about the values)", example: "https://status.example.com/"),
    ]
}

extension HTTPJSONFormat: OptionChoice {}
