/// A rectangle of terminal cells: origin at the top left, x grows right, y grows down.
///
/// Sizes are in cells and never negative: every operation that would shrink a rectangle
/// below zero clamps to an empty one, so drawing code can inset and split freely without
/// checking first. An empty rectangle (width or height 0) contains no cells.
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    /// Creates a rectangle; a negative width or height is clamped to 0.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The empty rectangle at the origin.
    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    /// One past the last column.
    public var maxX: Int { x + width }
    /// One past the last row.
    public var maxY: Int { y + height }
    /// Whether the rectangle contains no cell.
    public var isEmpty: Bool { width == 0 || height == 0 }
    /// Number of cells.
    public var area: Int { width * height }

    /// Whether the cell at (x, y) lies inside.
    public func contains(x px: Int, y py: Int) -> Bool {
        px >= x && px < maxX && py >= y && py < maxY
    }

    /// The cells both rectangles share; empty (at this origin) when they do not overlap.
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x), top = max(y, other.y)
        let right = min(maxX, other.maxX), bottom = min(maxY, other.maxY)
        guard right > left, bottom > top else { return Rect(x: left, y: top, width: 0, height: 0) }
        return Rect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// The rectangle shrunk by the given margins, clamped to empty.
    public func inset(top: Int = 0, left: Int = 0, bottom: Int = 0, right: Int = 0) -> Rect {
        let w = width - left - right, h = height - top - bottom
        return Rect(x: x + min(left, width), y: y + min(top, height), width: w, height: h)
    }

    /// The rectangle shrunk by `amount` on every side (1 leaves room for a border).
    public func inset(by amount: Int) -> Rect {
        inset(top: amount, left: amount, bottom: amount, right: amount)
    }

    /// Splits off `count` rows from the top: (the top part, the rest). Counts are clamped.
    public func splitTop(_ count: Int) -> (top: Rect, rest: Rect) {
        let n = min(max(0, count), height)
        return (Rect(x: x, y: y, width: width, height: n), Rect(x: x, y: y + n, width: width, height: height - n))
    }

    /// Splits off `count` columns from the left: (the left part, the rest). Counts are clamped.
    public func splitLeft(_ count: Int) -> (left: Rect, rest: Rect) {
        let n = min(max(0, count), width)
        return (Rect(x: x, y: y, width: n, height: height), Rect(x: x + n, y: y, width: width - n, height: height))
    }

    /// Divides the columns into parts proportional to `weights`, left to right.
    ///
    /// The parts tile the rectangle exactly (rounding leftovers go to the first parts);
    /// zero or negative weights get no columns. Returns one rectangle per weight.
    public func columns(weights: [Int]) -> [Rect] {
        Rect.distribute(width, weights: weights).reduce(into: (x, [Rect]())) { acc, w in
            acc.1.append(Rect(x: acc.0, y: y, width: w, height: height))
            acc.0 += w
        }.1
    }

    /// Divides the rows into parts proportional to `weights`, top to bottom (as `columns`).
    public func rows(weights: [Int]) -> [Rect] {
        Rect.distribute(height, weights: weights).reduce(into: (y, [Rect]())) { acc, h in
            acc.1.append(Rect(x: x, y: acc.0, width: width, height: h))
            acc.0 += h
        }.1
    }

    static func distribute(_ total: Int, weights: [Int]) -> [Int] {
        let positive = weights.map { max(0, $0) }
        let sum = positive.reduce(0, +)
        guard sum > 0 else { return weights.map { _ in 0 } }
        var parts = positive.map { total * $0 / sum }
        var left = total - parts.reduce(0, +)
        for i in parts.indices where left > 0 && positive[i] > 0 {
            parts[i] += 1
            left -= 1
        }
        return parts
    }

    public var description: String { "(\(x),\(y) \(width)×\(height))" }
}
