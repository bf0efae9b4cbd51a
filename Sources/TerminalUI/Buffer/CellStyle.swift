/// How a cell is drawn: a semantic role plus attributes.
public struct CellStyle: Hashable, Sendable {
    public var role: StyleRole
    public var attributes: CellAttributes
    /// The cell's content is accentable (WidgetKit's `widgetAccentable()`): in the `accented`
    /// rendering mode it takes the theme's accent tone, the rest one neutral tone; other modes
    /// draw it as its role says.
    public var accentable = false

    public init(_ role: StyleRole = .foreground, _ attributes: CellAttributes = [], accentable: Bool = false) {
        self.role = role
        self.attributes = attributes
        self.accentable = accentable
    }

    /// Plain text in the foreground role.
    public static let plain = CellStyle()
}
