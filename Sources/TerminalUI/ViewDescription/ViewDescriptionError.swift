/// Why a view description was refused: every problem found, each with the path of the
/// value at fault.
///
/// Paths start at the base path the caller gave (e.g. `entries[3].view`) and name fields with
/// `.name` and array elements with `[i]`: `entries[3].view.children[1].role: unknown role
/// "red" (expected one of background, foreground, …)`. At most `maximumIssues` problems are
/// kept, so a hostile document cannot produce an unbounded report.
public struct ViewDescriptionError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One problem: where and what.
    public struct Issue: Sendable, Equatable, CustomStringConvertible {
        public var path: String
        public var message: String

        public init(path: String, message: String) {
            self.path = path
            self.message = message
        }

        public var description: String { "\(path): \(message)" }
    }

    /// The most problems reported; past it the last issue says how many more there were.
    public static let maximumIssues = 50

    public var issues: [Issue]

    public init(issues: [Issue]) {
        self.issues = issues
    }

    /// One problem per line.
    public var description: String { issues.map(\.description).joined(separator: "\n") }
}
