/// Text attributes a cell may carry on top of its role's colours.
///
/// The backend combines these with the attributes its theme gives the role (a monochrome
/// theme is made of attributes only).
public struct CellAttributes: OptionSet, Hashable, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let bold = CellAttributes(rawValue: 1 << 0)
    public static let dim = CellAttributes(rawValue: 1 << 1)
    public static let reverse = CellAttributes(rawValue: 1 << 2)
    public static let underline = CellAttributes(rawValue: 1 << 3)

    /// Names as written in theme files, in a fixed order.
    public static let named: [(name: String, value: CellAttributes)] = [
        ("bold", .bold), ("dim", .dim), ("reverse", .reverse), ("underline", .underline),
    ]

    /// The attribute names set, in the order of `named`.
    public var names: [String] { Self.named.filter { contains($0.value) }.map(\.name) }
}
