/// The subcommands of `widgethost`, by the name typed on the command line.
public enum Subcommand: String, Sendable, CaseIterable {
    case snapshot
    case preview
    /// `extension run NAME/KIND`
    case extensionRun = "extension"
    case checkConfig = "check-config"
    case themes
    case widgets
    case sessions
    /// `reload KIND ... | --all`: `WidgetCenter` from a shell, through the control socket.
    case reload
    /// `config add KIND ... | remove N`: edit the config file from a shell.
    case config
    /// `activity start|update|end|list`: Live Activities from a shell.
    case activity
    /// `events`: the history of activities and alerts.
    case events
    case help

    /// As typed before `--help`: `extension run` for `extensionRun`, else the name.
    public var usageName: String { self == .extensionRun ? "extension run" : rawValue }
}
