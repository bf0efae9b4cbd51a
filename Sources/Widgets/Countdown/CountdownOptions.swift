import WidgetCore

/// The countdown's options, declared once: the manifest's entries and what its provider reads.
public struct CountdownOptions: OptionSchema, Equatable {
    /// When it ends, as `CountdownTarget.parse` reads it (required).
    public var to = ""
    public var label: String?

    public init() {}

    public static let fields: [OptionField<Self>] = [
        OptionField(\.to, "to", .dateTime, required: true,
                    doc: "when it ends: ISO 8601 with offset, or local time", example: "2026-12-31T23:59"),
        OptionField(\.label, "label", .string, doc: "what it counts down to (and the panel's title)", example: "New Year"),
    ]
}
