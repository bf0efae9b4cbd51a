import WidgetCore

/// Options of `widgethost config add|remove`: an edit of the config file from a shell.
public struct ConfigEditOptions: Sendable, Equatable {
    /// What to change.
    public enum Action: Sendable, Equatable {
        /// `add KIND`: a panel of KIND at the end of the page (`--page N`, else the last).
        case add(kind: String, family: WidgetFamily?, options: [OptionAssignment], page: Int?)
        /// `remove N`: panel N, counting from 1 page after page.
        case remove(panel: Int)
    }

    public var action: Action
    /// `--config PATH`: the file to edit (created from the default dashboard when missing).
    public var configPath: String?
    /// `--extensions-dir DIR`: searched for extension kinds first.
    public var extensionsDirectory: String?

    public init(action: Action, configPath: String? = nil, extensionsDirectory: String? = nil) {
        self.action = action
        self.configPath = configPath
        self.extensionsDirectory = extensionsDirectory
    }
}
