import WidgetCore

/// The text widget's options, declared once: the manifest's entries and what its provider and
/// its `e` action read. A panel gives exactly one of `text` and `file`.
public struct TextOptions: OptionSchema, Equatable {
    public var text: String?
    public var file: String?
    public var wrap = true

    public init() {}

    public static let fields: [OptionField<Self>] = [
        OptionField(\.text, "text", .string, doc: "the text to show (or file)", example: "Hello"),
        OptionField(\.file, "file", .string, doc: "a file to show (~ for HOME), reloaded on change (or text)", example: "~/notes.txt"),
        OptionField(\.wrap, "wrap", .bool, doc: "wrap long lines to the panel; false cuts them", example: "false"),
    ]
}
