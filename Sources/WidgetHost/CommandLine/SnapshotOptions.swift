import TerminalUI

/// Options of `widgethost snapshot`, which renders one frame as text.
public struct SnapshotOptions: Sendable, Equatable {
    /// The frame size used when `--size` is absent.
    public static let defaultSize = TerminalSize(columns: 100, rows: 30)
    /// Longest `--wait`, in seconds.
    public static let maximumWait = 600.0

    public var configPath: String?
    public var theme: String?
    public var stateDirectory: String?
    /// `--size COLSxROWS`, default 100x30.
    public var size: TerminalSize
    /// `--at`; nil means now.
    public var at: SnapshotTime?
    /// `--wait SECONDS`: how long to let providers and downloads answer before rendering;
    /// nil lets the host decide.
    public var waitSeconds: Double?
    /// `--color`: emit ANSI colour sequences.
    public var color: Bool
    /// `--extensions-dir DIR`: searched for extensions first.
    public var extensionsDirectory: String?

    public init(configPath: String? = nil, theme: String? = nil, stateDirectory: String? = nil,
                size: TerminalSize = SnapshotOptions.defaultSize, at: SnapshotTime? = nil,
                waitSeconds: Double? = nil, color: Bool = false, extensionsDirectory: String? = nil) {
        self.extensionsDirectory = extensionsDirectory
        self.configPath = configPath
        self.theme = theme
        self.stateDirectory = stateDirectory
        self.size = size
        self.at = at
        self.waitSeconds = waitSeconds
        self.color = color
    }
}
