/// Why an extension's manifest was refused: the file and every problem found in it, each
/// with the key path of the value at fault (`widgets[0].options.city.type`).
public struct ExtensionManifestError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Issue: Sendable, Equatable, CustomStringConvertible {
        /// `widgets[0].kind`; empty for the file as a whole.
        public var path: String
        public var message: String

        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }

        public var description: String { path.isEmpty ? message : "\(path): \(message)" }
    }

    /// At most this many issues per file; the last one then says how many were left out.
    public static let maximumIssues = 50

    /// The manifest file.
    public var file: String
    public var issues: [Issue]

    public init(file: String, issues: [Issue]) {
        self.file = file
        self.issues = issues
    }

    /// One `FILE: path: message` line per issue.
    public var lines: [String] { issues.map { "\(file): \($0)" } }

    public var description: String { lines.joined(separator: "\n") }
}
