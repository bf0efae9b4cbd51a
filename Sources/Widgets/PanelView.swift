import FoundationEssentials
import TerminalUI
import WidgetCore

/// What a widget's view produces for the terminal: a view description (`ViewNode`) of one
/// entry, drawn into a panel's content area, and how tall it would like to be.
///
/// Every widget's view is `(entry, WidgetViewContext) -> ViewNode`, built-in or extension
/// (docs/views.md); glyphs that differ between Unicode and ASCII terminals are tokens in the
/// node, resolved when it is drawn. Views draw roles, never colours, and only inside the
/// rectangle they are given; the host draws the border, title and status lines around it.
/// The host draws a view in a rectangle of the context's size (a view taller than its panel
/// is asked for the height it is drawn at), so a view may lay itself out for that size.
public struct PanelView: Sendable {
    /// The view.
    public let node: ViewNode
    /// Rows the view would use if it had them (e.g. a long list); the host scrolls a zoomed
    /// panel through that many, drawing the view that tall. nil: the view fits itself to any
    /// height.
    public let contentHeight: Int?

    /// A view described as data: `node` drawn into the panel's content area.
    public init(contentHeight: Int? = nil, node: ViewNode) {
        self.contentHeight = contentHeight
        self.node = node
    }

    /// Draws into `rect` of `buffer` with `glyphs` (Unicode or ASCII), its date nodes and timer
    /// bars at `now`, the frame's time (nil: each at its own date).
    public func draw(into buffer: inout CellBuffer, in rect: Rect, glyphs: GlyphSet, at now: Date? = nil) {
        guard !rect.isEmpty else { return }
        node.draw(into: &buffer, in: rect, glyphs: glyphs, at: now)
    }

    /// Lines of text, each with a style (its role and bold), centred vertically and
    /// horizontally in the area; each line stays one line (a line feed is shown inert).
    public static func centeredLines(_ lines: [(String, CellStyle)]) -> PanelView {
        PanelView(node: ViewNode.centered(lines.map { line in
            .text(Sanitizer.sanitize(line.0), role: line.1.role, bold: line.1.attributes.contains(.bold), alignment: .center)
        }))
    }
}

/// A widget kind for the terminal host: WidgetCore's configuration with a `PanelView` view.
public typealias TerminalWidget = WidgetConfiguration<PanelView>

extension PanelView {
    /// A widget's `view` for a view of its own entry type: `view: PanelView.typed(view)`, with
    /// `contentHeight` for a view that can be taller than its panel.
    ///
    /// An entry of another type (its provider never gives one) draws nothing.
    public static func typed<Entry: TimelineEntry>(
        _ view: @escaping @Sendable (Entry, WidgetViewContext) -> ViewNode,
        contentHeight: (@Sendable (Entry, WidgetViewContext) -> Int?)? = nil
    ) -> @Sendable (any TimelineEntry, WidgetViewContext) -> PanelView {
        { entry, context in
            guard let entry = entry as? Entry else { return PanelView(node: .vstack([])) }
            return PanelView(contentHeight: contentHeight?(entry, context), node: view(entry, context))
        }
    }
}

extension ViewNode {
    /// `lines` one under the other, centred vertically in whatever height they get (the
    /// first lines kept when there is not room for all).
    static func centered(_ lines: [ViewNode]) -> ViewNode {
        .vstack([.spacer] + lines + [.spacer])
    }

    /// Groups of one-row lines spread down `rows`: equal blank space above, between and below
    /// the groups, so a tall panel shows no blank band over a third of it (DESIGN.md §9) where
    /// `centered` would leave one above and one below. With less than a blank row for each
    /// gap the lines stay together, centred. The first lines are kept when there is not room
    /// for all.
    static func spread(_ groups: [[ViewNode]], rows: Int) -> ViewNode {
        let groups = groups.filter { !$0.isEmpty }
        let lines = groups.reduce(0) { $0 + $1.count }
        guard rows - lines >= groups.count + 1 else { return centered(groups.flatMap { $0 }) }
        return .vstack([.spacer] + groups.flatMap { $0 + [.spacer] })
    }
}
