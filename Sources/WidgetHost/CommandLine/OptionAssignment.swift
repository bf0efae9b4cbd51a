/// One `--option NAME=VALUE` of `widgethost preview`, still as text.
///
/// `ConfigValidator.previewPanel` turns these into typed option values.
public struct OptionAssignment: Sendable, Equatable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
