/// The size class of a widget, as in WidgetKit.
///
/// In the terminal a family is a block of grid units: small 1×1, medium 2×1, large 2×2,
/// extraLarge 4×2 (columns × rows). The layout turns units into cells for the terminal at hand.
public enum WidgetFamily: String, CaseIterable, Sendable, Codable, CustomStringConvertible {
    case small
    case medium
    case large
    case extraLarge

    /// Grid units this family occupies: (columns, rows).
    public var gridUnits: (columns: Int, rows: Int) {
        switch self {
        case .small: (1, 1)
        case .medium: (2, 1)
        case .large: (2, 2)
        case .extraLarge: (4, 2)
        }
    }

    public var description: String { rawValue }
}
