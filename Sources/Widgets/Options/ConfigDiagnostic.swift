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

extension ConfigDiagnostic {
    /// At most this many diagnostics are printed; the rest are counted.
    public static let printLimit = 50

    /// One line per diagnostic, each after `prefix`, at most `limit` of them, then
    /// `PREFIX… and N more`: a hostile file with 60,000 unknown keys gets a screenful, not
    /// megabytes.
    public static func lines(_ diagnostics: [ConfigDiagnostic], prefix: String, limit: Int = printLimit) -> String {
        var out = diagnostics.prefix(limit).map { "\(prefix)\($0)\n" }.joined()
        if diagnostics.count > limit {
            out += "\(prefix)… and \(diagnostics.count - limit) more\n"
        }
        return out
    }
}
