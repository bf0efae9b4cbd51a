import TerminalUI

/// Options of the plain `widgethost` command, which runs the dashboard.
public struct DashboardOptions: Sendable, Equatable {
    /// `--config PATH`; nil means the lookup order of `ConfigLocator`.
    public var configPath: String?
    /// `--theme NAME|PATH`; overrides the config's theme.
    public var theme: String?
    /// `--state-dir DIR`; nil means `ConfigLocator.stateDirectory`'s default.
    public var stateDirectory: String?
    /// `--debug`: more detail in the log.
    public var debug: Bool
    /// `--extensions-dir DIR`: searched for extensions before `$XDG_CONFIG_HOME/widgethost/extensions`.
    public var extensionsDirectory: String?
    /// `--record-messages FILE`: every message the dashboard applies, written to FILE.
    public var recordMessages: String?
    /// `--private`: start in the privacy mode (`P`).
    public var isPrivate = false
    /// `--rendering-mode`: draw in this mode; nil: the terminal's (`RenderingMode.detect`).
    public var renderingMode: RenderingMode?

    public init(configPath: String? = nil, theme: String? = nil, stateDirectory: String? = nil, debug: Bool = false,
                extensionsDirectory: String? = nil, recordMessages: String? = nil) {
        self.extensionsDirectory = extensionsDirectory
        self.recordMessages = recordMessages
        self.configPath = configPath
        self.theme = theme
        self.stateDirectory = stateDirectory
        self.debug = debug
    }
}
