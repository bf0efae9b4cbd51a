/// Horizontal placement of text within its width.
public enum TextAlignment: Hashable, Sendable {
    case left
    case center
    case right

    /// The column offset for text `textWidth` wide in `width` columns (never negative;
    /// centring leans left by half a column).
    public func offset(textWidth: Int, in width: Int) -> Int {
        let spare = max(0, width - textWidth)
        switch self {
        case .left: return 0
        case .center: return spare / 2
        case .right: return spare
        }
    }
}
