/// What one role looks like on the terminal at hand: colours and attributes.
public struct RoleColors: Hashable, Sendable {
    public var foreground: TerminalColor
    public var background: TerminalColor
    public var attributes: CellAttributes

    public init(foreground: TerminalColor, background: TerminalColor, attributes: CellAttributes) {
        self.foreground = foreground
        self.background = background
        self.attributes = attributes
    }
}
