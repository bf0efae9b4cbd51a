/// One option of a `widgethost` command, declared once: the parser's table of options
/// (`ArgumentScanner`) and the help's usage line and `Options:` lines both come from it.
struct CommandOption: Sendable {
    /// `--config`.
    let name: String
    /// What the value is called (`PATH`); nil for a flag.
    let argument: String?
    /// The help's description, one element per line.
    let help: [String]
    /// May be given more than once (`--option`).
    var repeatable = false

    /// `--config PATH`, or the name of a flag.
    var label: String { argument.map { "\(name) \($0)" } ?? name }

    static let config = CommandOption(name: "--config", argument: "PATH", help: [
        "config file; default $WIDGETHOST_CONFIG, else",
        "$XDG_CONFIG_HOME/widgethost/config.json",
        "(~/.config/widgethost/config.json); none: the default dashboard"])
    static let theme = CommandOption(name: "--theme", argument: "NAME|PATH",
                                     help: ["theme by name or file; overrides the config's \"theme\""])
    static let stateDirectory = CommandOption(name: "--state-dir", argument: "DIR", help: [
        "journal, containers and log; default $XDG_STATE_HOME/widgethost",
        "(~/.local/state/widgethost)"])

    static let extensionsDirectory = CommandOption(name: "--extensions-dir", argument: "DIR", help: [
        "extensions (DIR/NAME/extension.json), searched before",
        "$XDG_CONFIG_HOME/widgethost/extensions"])

    /// `--private`: the dashboard's and `snapshot`'s.
    static let privacy = CommandOption(name: "--private", argument: nil,
                                       help: ["the privacy mode (P): what widgets mark private is hidden"])

    /// `--rendering-mode`: the dashboard's and `snapshot`'s.
    static let renderingMode = CommandOption(name: "--rendering-mode", argument: "MODE", help: [
        "fullColor, accented (two tones: what widgets mark accentable in the",
        "theme's accent) or mono (no colour: bold, dim, reverse, underline);",
        "default from the terminal: mono with NO_COLOR or < 8 colours,",
        "accented with 8, else fullColor"])

    /// `--family`, `--count`, `--option`: `preview` and `extension run`.
    static let previewShared = [
        CommandOption(name: "--family", argument: "FAMILY", help: ["small, medium, large or extraLarge (default: the kind's)"]),
        CommandOption(name: "--count", argument: "N", help: ["number of entries to show, 1…1000"]),
        CommandOption(name: "--option", argument: "NAME=VALUE",
                      help: ["set a widget option; repeat for several options;", "text as it is (no quotes), lists and objects as JSON"],
                      repeatable: true),
    ]

    /// The options of `subcommand` (nil: the dashboard), in the order the help lists them.
    static func options(of subcommand: Subcommand?) -> [CommandOption] {
        switch subcommand {
        case nil:
            return [config, theme, stateDirectory, extensionsDirectory,
                    CommandOption(name: "--debug", argument: nil, help: ["write more detail to the log (DIR/widgethost.log)"]),
                    CommandOption(name: "--record-messages", argument: "FILE", help: [
                        "debug: write every message the dashboard applies to FILE, one",
                        "JSON line each, replayable: snapshot --replay FILE"]),
                    privacy, renderingMode]
        case .snapshot?:
            return [
                CommandOption(name: "--config", argument: "PATH", help: ["config file (lookup as for the dashboard)"]),
                CommandOption(name: "--size", argument: "COLSxROWS", help: ["frame size, each 1…1000 (default 100x30)"]),
                CommandOption(name: "--at", argument: "TIME", help: [
                    "the moment to show: ISO 8601 with Z or an offset",
                    "(2026-11-30T05:00:00Z, 2026-11-30T06:00:00+01:00),",
                    "or from now: +90s, +5m, +2h (default now)"]),
                CommandOption(name: "--wait", argument: "SECONDS",
                              help: ["let widgets fetch data this long before rendering (0…600)"]),
                CommandOption(name: "--format", argument: "FORMAT", help: [
                    "text (default), ansi (colours), svg (an image of the cell",
                    "grid), html (a page); in the theme's colours"]),
                CommandOption(name: "--color", argument: nil, help: ["emit ANSI colours (--format ansi)"]),
                privacy,
                renderingMode,
                CommandOption(name: "--record", argument: "FILE", help: [
                    "write an asciicast v2 recording to FILE instead: the dashboard",
                    "played from --at through simulated time (no waiting)"]),
                CommandOption(name: "--duration", argument: "TIME", help: ["how long the recording plays: 60s, 5m, 2h (up to 1 day)"]),
                CommandOption(name: "--step", argument: "TIME", help: ["a frame every TIME of the recording (default 1s)"]),
                CommandOption(name: "--theme", argument: "NAME|PATH", help: ["theme by name or file"]),
                CommandOption(name: "--state-dir", argument: "DIR", help: ["read cached widget data from DIR (never written)"]),
                extensionsDirectory,
                CommandOption(name: "--replay", argument: "FILE", help: [
                    "show the frame a run recorded with --record-messages FILE",
                    "showed at --at (+90s from its start; default its end)"]),
                CommandOption(name: "--describe", argument: nil, help: ["with --replay: list the recorded messages instead"]),
            ]
        case .preview?:
            return previewShared + [
                CommandOption(name: "--snapshot", argument: nil,
                              help: ["show the one entry a gallery shows (the widget's snapshot)"]),
                extensionsDirectory,
            ]
        case .extensionRun?:
            return [
                CommandOption(name: "--family", argument: "FAMILY", help: ["small, medium, large or extraLarge (default: the kind's)"]),
                CommandOption(name: "--size", argument: "COLSxROWS",
                              help: ["the content size sent to the extension (default: the family's", "preview size)"]),
            ] + previewShared.dropFirst() + [
                CommandOption(name: "--snapshot", argument: nil, help: ["send snapshot instead of timeline"]),
                extensionsDirectory,
                CommandOption(name: "--debug", argument: nil, help: ["echo every JSON-RPC message, both ways, to stderr"]),
            ]
        case .sessions?:
            return [
                CommandOption(name: "--state-dir", argument: "DIR", help: ["state directory (default $XDG_STATE_HOME/widgethost)"]),
                CommandOption(name: "--purge", argument: nil, help: ["remove the journal's session records"]),
            ]
        case .reload?:
            return [
                CommandOption(name: "--all", argument: nil, help: ["reload every panel"]),
                CommandOption(name: "--state-dir", argument: "DIR", help: ["the dashboard's state directory (default $XDG_STATE_HOME/widgethost)"]),
            ]
        case .config?:
            return [
                CommandOption(name: "--config", argument: "PATH", help: ["the file to edit (lookup as for the dashboard; created", "from the default dashboard when missing)"]),
                CommandOption(name: "--family", argument: "FAMILY", help: ["add: small, medium, large or extraLarge (default: the kind's)"]),
                CommandOption(name: "--option", argument: "NAME=VALUE",
                              help: ["add: set a widget option; repeat for several options;", "text as it is (no quotes), lists and objects as JSON"],
                              repeatable: true),
                CommandOption(name: "--page", argument: "N", help: ["add: on page N (default the last)"]),
                extensionsDirectory,
            ]
        case .activity?:
            return activityOptions
        case .events?:
            return eventsOptions
        case .checkConfig?, .widgets?:
            return [extensionsDirectory]
        case .themes?, .help?:
            return []
        }
    }

    /// The help's `Options:` block: these options, then `extra` (`-h, --help`, …).
    static func helpBlock(_ options: [CommandOption], extra: [(label: String, help: String)]) -> String {
        let rows = options.map { ($0.label, $0.help) } + extra.map { ($0.label, [$0.help]) }
        let width = rows.map(\.0.count).max() ?? 0
        var out = "Options:\n"
        for (label, lines) in rows {
            for (index, line) in lines.enumerated() {
                let left = index == 0 ? label : ""
                out += "  " + left + String(repeating: " ", count: width - left.count + 2) + line + "\n"
            }
        }
        return out
    }

    /// `[--config PATH] [--debug] …` after `prefix`, wrapped before 96 columns under the first
    /// bracket.
    static func usage(_ prefix: String, _ options: [CommandOption], suffix: String = "") -> String {
        var lines = [prefix]
        let indent = String(repeating: " ", count: prefix.count + 1)
        for option in options {
            let item = "[\(option.label)]" + (option.repeatable ? "..." : "")
            if lines[lines.count - 1].count + 1 + item.count > 96 { lines.append(indent + item) }
            else { lines[lines.count - 1] += " " + item }
        }
        return lines.joined(separator: "\n") + suffix + "\n"
    }
}

extension ArgumentScanner {
    /// A scanner that accepts exactly the options `CommandOption.options(of:)` declares.
    init(_ arguments: [String], subcommand: Subcommand?) {
        self.init(arguments, subcommand: subcommand, options: CommandOption.options(of: subcommand))
    }
}
