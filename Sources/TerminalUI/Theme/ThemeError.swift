/// Why a theme could not be loaded: the file, and every problem found in it.
///
/// `description` has one line per problem, `FILE: KEY.PATH: message`, e.g.
/// `mytheme.json: colors.accent: "#12345" is not a colour (expected #rrggbb, a colour name,
/// 0-255 or "default")`. A host exits with status 2 on it (DESIGN.md §4).
public struct ThemeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// One problem at a key path ("" for the file as a whole).
    public struct Issue: Hashable, Sendable {
        public var keyPath: String
        public var message: String

        public init(keyPath: String, message: String) {
            self.keyPath = keyPath
            self.message = message
        }
    }

    /// The file as the user named it (or the theme name when no file was found).
    public var file: String
    public var issues: [Issue]

    public init(file: String, issues: [Issue]) {
        self.file = file
        self.issues = issues
    }

    public init(file: String, message: String) {
        self.init(file: file, issues: [Issue(keyPath: "", message: message)])
    }

    /// At most this many issues are described; the rest are counted.
    public static let describedLimit = 50

    public var description: String {
        var lines = issues.prefix(Self.describedLimit)
            .map { "\(file): " + ($0.keyPath.isEmpty ? "" : "\($0.keyPath): ") + $0.message }
        if issues.count > Self.describedLimit { lines.append("\(file): … and \(issues.count - Self.describedLimit) more") }
        return lines.joined(separator: "\n")
    }
}
