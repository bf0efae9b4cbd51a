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
    /// `--format`: what the frame is written as (`--color` is `ansi`).
    public var format: SnapshotFormat
    /// ANSI colour sequences (`--format ansi`, `--color`).
    public var color: Bool {
        get { format == .ansi }
        set { format = newValue ? .ansi : .text }
    }
    /// `--extensions-dir DIR`: searched for extensions first.
    public var extensionsDirectory: String?

    public init(configPath: String? = nil, theme: String? = nil, stateDirectory: String? = nil,
                size: TerminalSize = SnapshotOptions.defaultSize, at: SnapshotTime? = nil,
                waitSeconds: Double? = nil, color: Bool = false, format: SnapshotFormat? = nil,
                extensionsDirectory: String? = nil) {
        self.extensionsDirectory = extensionsDirectory
        self.configPath = configPath
        self.theme = theme
        self.stateDirectory = stateDirectory
        self.size = size
        self.at = at
        self.waitSeconds = waitSeconds
        self.format = format ?? (color ? .ansi : .text)
    }
}

/// What `widgethost snapshot` writes (DESIGN.md §13).
public enum SnapshotFormat: String, Sendable, CaseIterable {
    /// Plain text, one line per row.
    case text
    /// Text with ANSI colour sequences (`--color`).
    case ansi
    /// An SVG image: a fixed cell grid in the theme's colours.
    case svg
    /// A standalone HTML page: a `<pre>` with styled spans.
    case html
}
