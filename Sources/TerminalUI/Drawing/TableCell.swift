/// One cell of a `Table` row: text and its style.
public struct TableCell: Hashable, Sendable, ExpressibleByStringLiteral {
    public var text: String
    public var style: CellStyle

    public init(_ text: String, style: CellStyle = .plain) {
        self.text = text
        self.style = style
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }
}
