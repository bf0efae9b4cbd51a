import TerminalUI
import WidgetCore

/// What a widget's view produces for the terminal: a drawing of one entry into a panel's
/// content area.
///
/// Views draw roles, never colours, and only inside the rectangle they are given; the host
/// draws the border, title and status lines around it.
public struct PanelView: Sendable {
    private let body: @Sendable (inout CellBuffer, Rect, GlyphSet) -> Void
    /// Rows the view would use if it had them (e.g. a long list); the host scrolls a zoomed
    /// panel through that many. nil: the view fits itself to any height.
    public let contentHeight: Int?

    public init(contentHeight: Int? = nil, _ body: @escaping @Sendable (inout CellBuffer, Rect, GlyphSet) -> Void) {
        self.contentHeight = contentHeight
        self.body = body
    }

    /// A view described as data: `node` drawn into the panel's content area.
    ///
    /// The same renderer draws views that extensions send as JSON (see docs/views.md).
    public init(contentHeight: Int? = nil, node: ViewNode) {
        self.init(contentHeight: contentHeight) { buffer, rect, glyphs in
            node.draw(into: &buffer, in: rect, glyphs: glyphs)
        }
    }

    /// A view described as data that depends on the glyph set (e.g. an ASCII separator or a
    /// redaction mark): `node(glyphs)` drawn into the panel's content area.
    public init(contentHeight: Int? = nil, node: @escaping @Sendable (GlyphSet) -> ViewNode) {
        self.init(contentHeight: contentHeight) { buffer, rect, glyphs in
            node(glyphs).draw(into: &buffer, in: rect, glyphs: glyphs)
        }
    }

    /// Draws into `rect` of `buffer` with `glyphs` (Unicode or ASCII).
    public func draw(into buffer: inout CellBuffer, in rect: Rect, glyphs: GlyphSet) {
        guard !rect.isEmpty else { return }
        body(&buffer, rect, glyphs)
    }

    /// Lines of text, each with a style, centred vertically and horizontally in the area.
    public static func centeredLines(_ lines: [(String, CellStyle)]) -> PanelView {
        PanelView { buffer, rect, glyphs in
            let shown = Array(lines.prefix(rect.height))
            let top = rect.y + (rect.height - shown.count) / 2
            for (i, line) in shown.enumerated() {
                TextLine(line.0, alignment: .center, style: line.1, glyphs: glyphs)
                    .draw(into: &buffer, in: Rect(x: rect.x, y: top + i, width: rect.width, height: 1))
            }
        }
    }
}

/// A widget kind for the terminal host: WidgetCore's configuration with a `PanelView` view.
public typealias TerminalWidget = WidgetConfiguration<PanelView>

extension PanelView {
    /// A widget's `view` for a view of its own entry type: `view: PanelView.typed(view)`.
    ///
    /// An entry of another type (its provider never gives one) draws nothing.
    public static func typed<Entry: TimelineEntry>(
        _ view: @escaping @Sendable (Entry, WidgetViewContext) -> PanelView
    ) -> @Sendable (any TimelineEntry, WidgetViewContext) -> PanelView {
        { entry, context in
            guard let entry = entry as? Entry else { return PanelView { _, _, _ in } }
            return view(entry, context)
        }
    }
}
