import JSONTree

/// One option a widget kind accepts under a panel's `options`.
///
/// A required option must be given; an optional one without a default is simply absent
/// from `PanelConfig.options`. A default must itself be valid for `type`
/// (`WidgetKindDescriptor` checks this when the host registers the kind).
public struct OptionSpec: Sendable, Equatable {
    public var name: String
    public var type: OptionType
    public var required: Bool
    public var defaultValue: JSONValue?
    /// One line for `widgethost widgets` and for missing-option messages.
    public var help: String

    public init(name: String, type: OptionType, required: Bool = false,
                defaultValue: JSONValue? = nil, help: String) {
        self.name = name
        self.type = type
        self.required = required
        self.defaultValue = defaultValue
        self.help = help
    }
}
