import WidgetCore

/// One validated panel of the dashboard.
///
/// `options` holds every option the config gave plus the defaults of those it did not, decoded
/// to the types of the widget's manifest, so a widget can read its options without knowing the
/// defaults. A `stack` panel has no options
/// and one `children` entry per widget in the stack, each with the stack's family.
public struct PanelConfig: Sendable, Equatable {
    public var kind: String
    public var family: WidgetFamily
    /// The panel's title as written (at most 200 characters, no NUL); the renderer strips
    /// control characters. Nil means the widget's display name.
    public var title: String?
    public var options: WidgetOptions
    public var children: [PanelConfig]

    public init(kind: String, family: WidgetFamily, title: String? = nil,
                options: WidgetOptions = [:], children: [PanelConfig] = []) {
        self.kind = kind
        self.family = family
        self.title = title
        self.options = options
        self.children = children
    }

    /// Whether this panel is the built-in `stack`.
    public var isStack: Bool { kind == ConfigValidator.stackKind }
}
