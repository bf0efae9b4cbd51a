import WidgetCore
import Widgets

/// One validated panel of the dashboard.
///
/// `options` holds every option the config gave plus the defaults of those it did not, decoded
/// to the types of the widget's manifest, so a widget can read its options without knowing the
/// defaults. A `stack` panel has no options and one `children` entry per widget in the stack,
/// each with the stack's family; a validated config's stacks have two or more (a stack of one
/// is validated into its widget: `StackDefinition`).
public struct PanelConfig: Sendable, Equatable {
    public var kind: String
    public var family: WidgetFamily
    /// The panel's title as written (at most 200 characters, no NUL); the renderer strips
    /// control characters. Nil means the widget's display name.
    public var title: String?
    public var options: WidgetOptions
    public var children: [PanelConfig]
    /// The grid area the panel fills, on a page with an explicit grid (`GridTemplate`).
    public var area: String?
    /// A stack shows its most relevant member (true, the default) or the one flipped to.
    public var smartRotate = true

    public init(kind: String, family: WidgetFamily, title: String? = nil,
                options: WidgetOptions = [:], children: [PanelConfig] = [], area: String? = nil) {
        self.kind = kind
        self.family = family
        self.title = title
        self.options = options
        self.children = children
        self.area = area
    }

    /// The widgets the panel shows: a stack's children, else the panel itself (only a stack
    /// has children).
    public var members: [PanelConfig] { children.isEmpty ? [self] : children }

    /// Whether the panel is a stack: more than one widget, one at a time
    /// (`StackDefinition.isStack`, the dashboard's meaning too).
    public var isStack: Bool { StackDefinition.isStack(memberCount: members.count) }
}
