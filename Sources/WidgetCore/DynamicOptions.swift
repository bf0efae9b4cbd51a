/// A widget's answer to "which values may this option take?", as AppIntents'
/// `DynamicOptionsProvider`: the Edit Widget form's picker asks it for an option marked
/// `dynamic` in the manifest (`OptionSpec.dynamic`), with what the user typed and the panel's
/// options as the form has them (the hero's `session` says whose board to list).
///
/// ```swift
/// TerminalWidget(manifest: manifest, makeProvider: …, view: …)
///     .dynamicOptions { query in
///         zones(matching: query.query).map { DynamicOptionItem(value: $0, title: $0) }
///     }
/// ```
///
/// It is called off the loop (it may read files, an extension answers a request); what it
/// returns is bounded by the host (`DynamicOptions.maximumItems`, titles made printable).
public typealias DynamicOptionsProvider = @Sendable (DynamicOptionsQuery) async throws -> [DynamicOptionItem]

/// What the picker asks a widget's `DynamicOptionsProvider`.
public struct DynamicOptionsQuery: Sendable, Equatable {
    /// The option's name (`timeZone`).
    public var option: String
    /// What the user typed in the picker (empty: everything, as the provider sees fit).
    public var query: String
    /// The panel's options as the form has them now (those that read as their type).
    public var options: WidgetOptions

    public init(option: String, query: String, options: WidgetOptions = WidgetOptions()) {
        self.option = option
        self.query = query
        self.options = options
    }
}

/// One value the picker offers: what goes in the config (`value`), how it is listed
/// (`title`, and a `subtitle` after it).
public struct DynamicOptionItem: Sendable, Equatable {
    public var value: String
    public var title: String
    public var subtitle: String?

    public init(value: String, title: String, subtitle: String? = nil) {
        self.value = value
        self.title = title
        self.subtitle = subtitle
    }
}

/// The bounds of a provider's answer: the host keeps the first `maximumItems` items and cuts
/// titles and subtitles to `maximumTextLength` characters.
public enum DynamicOptions {
    public static let maximumItems = 200
    public static let maximumTextLength = 120
    /// The longest value taken (an option's string is at most 4096 characters).
    public static let maximumValueLength = 4096
}

extension WidgetConfiguration {
    /// The values the picker offers for the manifest's `dynamic` options (see
    /// `DynamicOptionsProvider`).
    public func dynamicOptions(_ provider: @escaping DynamicOptionsProvider) -> Self {
        var copy = self
        copy.optionsProvider = provider
        return copy
    }
}
