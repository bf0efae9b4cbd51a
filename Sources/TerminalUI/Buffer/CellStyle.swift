/// How a cell is drawn: a semantic role plus attributes.
public struct CellStyle: Hashable, Sendable {
    public var role: StyleRole
    public var attributes: CellAttributes

    public init(_ role: StyleRole = .foreground, _ attributes: CellAttributes = []) {
        self.role = role
        self.attributes = attributes
    }

    /// Plain text in the foreground role.
    public static let plain = CellStyle()
}
