import WidgetCore

/// The command widget's options, declared once: the manifest's entries and what `spec` reads.
/// A panel gives exactly one of `command` and `argv`.
public struct CommandOptions: OptionSchema, Equatable {
    /// Which lines of the output a panel shows when they do not all fit.
    public enum Show: String, OptionChoice {
        case tail, head
    }

    public var command: String?
    public var argv: [String]?
    public var intervalSeconds = 10
    public var timeoutSeconds = 10
    public var maxOutputBytes = 65_536
    public var workingDirectory: String?
    public var env: [String: String]?
    public var show = Show.tail
    public var alertOnFailure = false

    public init() {}

    public static let fields: [OptionField<Self>] = [
        OptionField(\.command, "command", .string, doc: "a command line for /bin/sh -c (or argv)", example: "df -h /"),
        OptionField(\.argv, "argv", .stringList, doc: "the program and its arguments, found in PATH (or command)"),
        OptionField(\.intervalSeconds, "intervalSeconds", .seconds(0...86_400, refreshInterval: false),
                    doc: "seconds between runs (≥ minimumReloadSeconds); 0: only on r", example: "30"),
        OptionField(\.timeoutSeconds, "timeoutSeconds", .seconds(1...CommandWidget.maximumTimeoutSeconds, refreshInterval: false),
                    doc: "kill the command's process group after this long", example: "5"),
        OptionField(\.maxOutputBytes, "maxOutputBytes", .integer(1...CommandWidget.maximumOutputBytes),
                    doc: "stdout+stderr bytes kept; the rest is read and dropped", example: "4096"),
        OptionField(\.workingDirectory, "workingDirectory", .string, doc: "where it runs (default: the host's)", example: "/tmp"),
        OptionField(\.env, "env", .stringMap, doc: "variables added to the host's environment"),
        OptionField(\.show, "show", doc: "show the last lines that fit, or the first", example: "head"),
        OptionField(\.alertOnFailure, "alertOnFailure", .bool, doc: "alert when a run fails (not exit 0)", example: "true"),
    ]
}
