extension ViewNode {
    /// The direction a stack lays its children out in.
    enum Axis {
        case vertical, horizontal
    }

    /// The rows (`.vertical`) or columns (`.horizontal`) the node needs, or nil when it is
    /// flexible along that axis and takes whatever share it is given.
    ///
    /// `cross` is the length available across the axis (the width when measuring a height);
    /// `parent` is the axis of the enclosing stack, which decides which way a divider runs.
    func naturalLength(along axis: Axis, cross: Int, parent: Axis) -> Int? {
        switch self {
        case .text(let text):
            let lines = ViewText(text)
            switch axis {
            case .vertical: return lines.layout(width: cross, wrap: text.wrap).count
            case .horizontal: return text.wrap ? nil : lines.naturalWidth
            }
        case .bar:
            return axis == .vertical ? 1 : nil
        case .table(let table):
            guard axis == .vertical else { return nil }
            return (table.columns.contains { !$0.title.isEmpty } ? 1 : 0) + table.rows.count
        case .sparkline, .spacer:
            return nil
        case .divider:
            // A divider runs across its parent's axis and is one cell thick along it.
            return axis == parent ? 1 : nil
        case .vstack(let stack):
            return stack.naturalLength(along: axis, cross: cross, own: .vertical)
        case .hstack(let stack):
            return stack.naturalLength(along: axis, cross: cross, own: .horizontal)
        }
    }
}

extension ViewNode.Stack {
    /// Along its own axis: the children's natural lengths plus gaps when every child has one
    /// and no weights are given, else flexible. Across it: the largest natural length of the
    /// children that have one, flexible when none has; an hstack measures each child's height
    /// at the width it gets, so wrapped text is measured as it will be drawn.
    ///
    /// Widths never depend on heights, so measuring a width never lays anything out, and a
    /// height costs at most the view's size times its depth.
    func naturalLength(along axis: ViewNode.Axis, cross: Int, own: ViewNode.Axis) -> Int? {
        if axis == own {
            guard weights == nil else { return nil }
            var total = gap * max(0, children.count - 1)
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

    /// The length each child gets along the stack's `axis` out of `total` (see docs/views.md).
    ///
    /// Gaps come off first. With weights, every child gets a share in proportion. Without,
    /// children with a natural length get it, in order, while room remains; the flexible ones
    /// share what is left equally. Shares are rounded down and the rows or columns left over
    /// go one each to the last sharing children, so `[spacer, x, spacer]` centres `x` leaning
    /// up or left, like centred text.
    func lengths(total: Int, cross: Int, axis: ViewNode.Axis) -> [Int] {
        let gaps = gap.multipliedReportingOverflow(by: max(0, children.count - 1))
        var remaining = gaps.overflow ? 0 : max(0, total - gaps.partialValue)
        if let weights {
            return Self.share(remaining, weights: children.indices.map { $0 < weights.count ? weights[$0] : 1 })
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
        for (i, share) in zip(flexible, Self.share(remaining, weights: flexible.map { _ in 1 })) {
            lengths[i] = share
        }
        return lengths
    }

    /// `total` split in proportion to positive `weights`: shares rounded down, leftovers one
    /// each to the last parts. Never overflows, whatever `total` is.
    static func share(_ total: Int, weights: [Int]) -> [Int] {
        let sum = weights.reduce(0) { $0 + max(0, $1) }
        guard sum > 0, total > 0 else { return weights.map { _ in 0 } }
        var parts = weights.map { weight -> Int in
            let product = total.multipliedFullWidth(by: max(0, weight))
            return sum.dividingFullWidth(product).quotient
        }
        var left = total - parts.reduce(0, +)
        for i in parts.indices.reversed() where left > 0 && weights[i] > 0 {
            parts[i] += 1
            left -= 1
        }
        // More leftovers than parts cannot happen (each share loses less than one), but stay safe.
        if left > 0, let last = parts.indices.last { parts[last] += left }
        return parts
    }
}
