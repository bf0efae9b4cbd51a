extension ViewNode {
    /// The direction a stack lays its children out in.
    enum Axis {
        case vertical, horizontal
    }
}

extension ViewNode.Stack {
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
