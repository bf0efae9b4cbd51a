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
    case help
}
