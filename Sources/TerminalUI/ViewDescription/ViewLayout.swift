/// One layout pass over a view: its tree of nodes, each with what has been measured of it so
/// far, so that a subtree is measured once per length it is given in the pass, not once per
/// ancestor that asks.
///
/// Constraints go down, sizes go up (as in Flutter): a stack asks its children's natural
/// lengths at the lengths it can give them and keeps the answers; drawing asks the same
/// questions and gets the kept answers. A text is shaped (split into styled glyphs) once and
/// wrapped once per width. Without this every level re-measured its whole subtree and rebuilt
/// the text each time: 64 alternating stacks around 62 KB of text took 4.6 s to lay out.
/// Made by `ViewNode.draw` for one frame and dropped after it; the answers are the same as
/// measuring afresh each time (docs/views.md, "Layout"), so frames do not change.
final class ViewLayout {
    let node: ViewNode
    /// A stack's children, laid out in the same pass; empty for other nodes.
    let children: [ViewLayout]
    /// The glyph set the view is drawn with: glyph tokens are measured as they will be drawn.
    let glyphs: GlyphSet

    private struct Question: Hashable {
        var axis: ViewNode.Axis
        var cross: Int
        var parent: ViewNode.Axis
    }

    private var answers: [Question: Int?] = [:]
    private var shapedText: ViewText?
    private var wrapped: (width: Int, lines: [ViewText.Line])?

    init(_ node: ViewNode, glyphs: GlyphSet) {
        // `ViewNode.draw` resolves dates at the frame's time first; one left is drawn at its own.
        if case .date(let date) = node { self.node = .text(date.text(at: date.text.shownAt ?? date.text.date)) } else { self.node = node }
        self.glyphs = glyphs
        switch node {
        case .vstack(let stack), .hstack(let stack): children = stack.children.map { ViewLayout($0, glyphs: glyphs) }
        default: children = []
        }
    }

    /// The rows (`.vertical`) or columns (`.horizontal`) the node needs, or nil when it is
    /// flexible along that axis and takes whatever share it is given.
    ///
    /// `cross` is the length available across the axis (the width when measuring a height);
    /// `parent` is the axis of the enclosing stack, which decides which way a divider runs.
    /// A width never depends on the height (text is as wide as its widest line, or flexible
    /// when it wraps), so a width is kept whatever `cross` it was asked with.
    func naturalLength(along axis: ViewNode.Axis, cross: Int, parent: ViewNode.Axis) -> Int? {
        let question = Question(axis: axis, cross: axis == .horizontal ? 0 : cross, parent: parent)
        if let known = answers[question] { return known }
        let length = measure(along: axis, cross: cross, parent: parent)
        answers[question] = .some(length)
        return length
    }

    private func measure(along axis: ViewNode.Axis, cross: Int, parent: ViewNode.Axis) -> Int? {
        switch node {
        case .text(let text):
            switch axis {
            case .vertical: return lines(width: cross).count
            case .horizontal: return text.wrap ? nil : shaped.naturalWidth
            }
        case .bar:
            return axis == .vertical ? 1 : nil
        case .table(let table):
            guard axis == .vertical else { return nil }
            return (table.columns.contains { $0.hasTitle } ? 1 : 0) + table.rows.count
        case .sparkline, .spacer, .date:
            return nil
        case .divider:
            // A divider runs across its parent's axis and is one cell thick along it.
            return axis == parent ? 1 : nil
        case .vstack(let stack):
            return stackLength(stack, along: axis, cross: cross, own: .vertical)
        case .hstack(let stack):
            return stackLength(stack, along: axis, cross: cross, own: .horizontal)
        }
    }

    /// Along its own axis: the children's natural lengths plus gaps when every child has one
    /// and no weights are given, else flexible. Across it: the largest natural length of the
    /// children that have one, flexible when none has; an hstack measures each child's height
    /// at the width it gets, so wrapped text is measured as it will be drawn.
    private func stackLength(_ stack: ViewNode.Stack, along axis: ViewNode.Axis, cross: Int, own: ViewNode.Axis) -> Int? {
        if axis == own {
            guard stack.weights == nil else { return nil }
            var total = stack.gap * max(0, children.count - 1)
            for child in children {
                guard let length = child.naturalLength(along: axis, cross: cross, parent: own) else { return nil }
                total += length
            }
            return total
        }
        let crossLengths = own == .horizontal
            ? lengths(total: cross, cross: 0, axis: own)
            : children.map { _ in cross }
        return zip(children, crossLengths).compactMap { child, length in
            child.naturalLength(along: axis, cross: length, parent: own)
        }.max()
    }

    /// The length each child of a stack gets along the stack's `axis` out of `total` (see
    /// docs/views.md).
    ///
    /// Gaps come off first. With weights, every child gets a share in proportion. Without,
    /// children with a natural length get it, in order, while room remains; the flexible ones
    /// share what is left equally (`ViewNode.Stack.share`).
    func lengths(total: Int, cross: Int, axis: ViewNode.Axis) -> [Int] {
        switch node {
        case .vstack(let stack), .hstack(let stack): return lengths(of: stack, total: total, cross: cross, axis: axis)
        default: return []
        }
    }

    private func lengths(of stack: ViewNode.Stack, total: Int, cross: Int, axis: ViewNode.Axis) -> [Int] {
        let gaps = stack.gap.multipliedReportingOverflow(by: max(0, children.count - 1))
        var remaining = gaps.overflow ? 0 : max(0, total - gaps.partialValue)
        if let weights = stack.weights {
            return ViewNode.Stack.share(remaining, weights: children.indices.map { $0 < weights.count ? weights[$0] : 1 })
        }
        var lengths = Array(repeating: 0, count: children.count)
        var flexible: [Int] = []
        for (i, child) in children.enumerated() {
            if let natural = child.naturalLength(along: axis, cross: cross, parent: axis) {
                lengths[i] = min(max(0, natural), remaining)
                remaining -= lengths[i]
            } else {
                flexible.append(i)
            }
        }
        for (i, share) in zip(flexible, ViewNode.Stack.share(remaining, weights: flexible.map { _ in 1 })) {
            lengths[i] = share
        }
        return lengths
    }

    /// A text's lines as shown `width` columns wide (wrapped when it wraps); the last width
    /// asked is kept, which is the width it is then drawn at.
    func lines(width: Int) -> [ViewText.Line] {
        guard case .text(let text) = node else { return [] }
        guard text.wrap, width > 0 else { return shaped.lines }
        if let wrapped, wrapped.width == width { return wrapped.lines }
        let lines = shaped.layout(width: width, wrap: true)
        wrapped = (width, lines)
        return lines
    }

    /// The text split into styled glyphs, once.
    private var shaped: ViewText {
        if let shapedText { return shapedText }
        guard case .text(let text) = node else { return ViewText(ViewNode.Text(spans: []), glyphs: glyphs) }
        let made = ViewText(text, glyphs: glyphs)
        shapedText = made
        return made
    }
}
