/// One problem found in a config document: where it is and what was expected.
///
/// `description` reads `panels[2].options.refreshSeconds: expected an integer ≥ 1, got "ten"`;
/// `check-config` prefixes it with the file's path.
public struct ConfigDiagnostic: Sendable, Equatable, CustomStringConvertible {
    public var path: ConfigPath
    public var message: String

    public init(path: ConfigPath, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
