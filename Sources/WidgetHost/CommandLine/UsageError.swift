/// A command line that does not fit the contract; exit status 2.
///
/// `description` is two lines: `widgethost snapshot: --size expects COLSxROWS …` and
/// `see 'widgethost snapshot --help'` (`extension run --help` for `extension run`).
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// The subcommand whose help to point at; nil for the main command.
    public var subcommand: Subcommand?

    public init(_ message: String, subcommand: Subcommand?) {
        self.message = message
        self.subcommand = subcommand
    }

    public var description: String {
        let command = ["widgethost", subcommand?.rawValue].compactMap { $0 }.joined(separator: " ")
        let help = ["widgethost", subcommand?.usageName].compactMap { $0 }.joined(separator: " ")
        return "\(command): \(message)\nsee '\(help) --help'"
    }
}
