extension ViewNode {
    /// Whether the node itself is marked accentable (a stack, text, table, bar, sparkline or date).
    public var isAccentable: Bool {
        switch self {
        case .vstack(let stack), .hstack(let stack): stack.accentable
        case .text(let text): text.accentable
        case .table(let table): table.accentable
        case .bar(let bar): bar.accentable
        case .sparkline(let sparkline): sparkline.accentable
        case .date(let node): node.accentable
        default: false
        }
    }

    /// The node marked accentable (WidgetKit's `widgetAccentable()`): in the `accented`
    /// rendering mode all it draws takes the theme's accent tone. A spacer or divider is
    /// returned as it is.
    public func accentable(_ on: Bool = true) -> ViewNode {
        switch self {
        case .vstack(var stack): stack.accentable = on; return .vstack(stack)
        case .hstack(var stack): stack.accentable = on; return .hstack(stack)
        case .text(var text): text.accentable = on; return .text(text)
        case .table(var table): table.accentable = on; return .table(table)
        case .bar(var bar): bar.accentable = on; return .bar(bar)
        case .sparkline(var sparkline): sparkline.accentable = on; return .sparkline(sparkline)
        case .date(var node): node.accentable = on; return .date(node)
        default: return self
        }
    }
}
