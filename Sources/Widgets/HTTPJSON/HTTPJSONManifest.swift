import WidgetCore

extension HTTPJSONWidget {
    /// The `http-json` kind and its options (DESIGN.md §4).
    public static let manifest = WidgetManifest(
        kind: kind, displayName: "JSON",
        description: "Values picked out of a JSON document by JSON Pointer, fetched through a background session.",
        supportedFamilies: WidgetFamily.allCases, defaultFamily: .medium,
        options: [
            OptionSpec(name: "url", type: .url(schemes: ["http", "https"]), required: true,
                       doc: "the JSON document", example: "https://api.example.com/status"),
            OptionSpec(name: "headers", type: .stringMap,
                       doc: "request headers (\"$NAME\": from the environment, never shown)",
                       example: nil),
            OptionSpec(name: "fields", type: .objectList([
                OptionSpec(name: "label", type: .string, required: true, doc: "the row's label", example: "Price"),
                OptionSpec(name: "pointer", type: .jsonPointer, required: true,
                           doc: "JSON Pointer (RFC 6901; ~1 for '/', ~0 for '~') to the value", example: "/data/0/price"),
                OptionSpec(name: "format", type: .oneOf(HTTPJSONFormat.allCases.map(\.rawValue)),
                           defaultValue: .string(HTTPJSONFormat.text.rawValue), doc: "how the value is shown", example: "number"),
            ]), required: true, doc: "the rows: label, pointer, format",
                       example: nil),
            OptionSpec(name: "refreshSeconds", type: .seconds(1...86_400, refreshInterval: true), defaultValue: .integer(60),
                       doc: "seconds between fetches", example: "300"),
            OptionSpec(name: "session", type: .string, defaultValue: .string(defaultSession),
                       doc: "background session identifier (letters, digits, . _ -)", example: "prices"),
        ])

    public static let definition = WidgetDefinition(manifest: manifest) { configuration(services: $0.services) }
}
