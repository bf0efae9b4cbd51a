/// An option value the widget cannot use, with the reason shown on its panel.
public struct OptionError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
