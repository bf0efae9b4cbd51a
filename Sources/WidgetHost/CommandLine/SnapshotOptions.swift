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
    /// `--record FILE`: an asciicast v2 recording of `recordDuration` seconds of the dashboard
    /// played through simulated time from `--at`, instead of one frame.
    public var recordPath: String?
    /// `--duration`: how long the recording plays (simulated seconds).
    public var recordDuration: Double?
    /// `--step`: how often a frame is taken (simulated seconds; default 1).
    public var recordStep: Double?
    /// Longest `--duration` (a day) and the most frames a recording takes.
    public static let maximumRecordDuration = 86_400.0
    public static let maximumRecordFrames = 100_000

    /// `--extensions-dir DIR`: searched for extensions first.
    public var extensionsDirectory: String?

    /// `--replay FILE`: the frame a recorded run (`--record-messages FILE`) showed at `--at`
    /// (from the recording's start; default its end), its config, theme and size the
    /// recording's.
    public var replayPath: String?
    /// `--describe` (with `--replay`): the recording's messages, one line each, not a frame.
    public var describe: Bool
    /// `--private`: the privacy mode (`P`): what views mark `privacySensitive` is redacted.
    public var isPrivate = false
    /// `--rendering-mode`: draw in this mode; nil: `mono` under `NO_COLOR`, else `fullColor`
    /// (the mode of the 256-colour terminal a snapshot stands for).
    public var renderingMode: RenderingMode?

    public init(configPath: String? = nil, theme: String? = nil, stateDirectory: String? = nil,
                size: TerminalSize = SnapshotOptions.defaultSize, at: SnapshotTime? = nil,
                waitSeconds: Double? = nil, color: Bool = false, format: SnapshotFormat? = nil,
                recordPath: String? = nil, recordDuration: Double? = nil, recordStep: Double? = nil,
                extensionsDirectory: String? = nil, replayPath: String? = nil, describe: Bool = false) {
        self.replayPath = replayPath
        self.describe = describe
        self.recordPath = recordPath
        self.recordDuration = recordDuration
        self.recordStep = recordStep
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

/// Seconds written as `90`, `90s`, `1.5m` or `2h`; nil for anything else (or a value that is
/// not finite and positive).
public func parseDurationSeconds(_ text: String) -> Double? {
    guard text.allSatisfy({ $0.isASCII }), !text.isEmpty else { return nil }
    let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
    var number = Substring(text)
    var factor = 1.0
    if let last = text.last, let unit = units[last] {
        number = number.dropLast()
        factor = unit
    }
    guard number.allSatisfy({ $0.isNumber || $0 == "." }), let value = Double(number), value.isFinite, value > 0 else { return nil }
    return value * factor
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
