import FoundationEssentials
import TerminalUI

/// The first line of a replayable message log: what a replay needs to build the dashboard the
/// recorded run started with (`snapshot --replay`): the config, the theme asked for, the
/// terminal's size, the start time and the environment variables that change a frame.
struct MessageLogHeader: Codable, Equatable, Sendable {
    /// What the first line's `format` says, so any other JSON lines file is refused at once.
    static let formatName = "widgethost-messages"
    /// The version this host writes and reads.
    static let currentVersion = 1
    /// The variables recorded: the zone (the status bar's clock, the clock widget), the locale
    /// (Unicode or ASCII glyphs), NO_COLOR.
    static let frameVariables = ["TZ", "LANG", "LC_ALL", "LC_CTYPE", "NO_COLOR"]

    /// The config the run used: the file's path and text, or nil text for the default dashboard.
    struct Config: Codable, Equatable, Sendable {
        var path: String?
        var text: String?

        static let defaultDashboard = Config(path: nil, text: nil)

        /// The config file at `path` as it reads now (nil: the default dashboard).
        static func recorded(_ path: String?) -> Config {
            guard let path else { return .defaultDashboard }
            let bytes = (try? ConfigFileReader.read(path)) ?? []
            return Config(path: path, text: String(decoding: bytes, as: UTF8.self))
        }
        var isDefaultDashboard: Bool { text == nil }
    }

    var format = MessageLogHeader.formatName
    var version = MessageLogHeader.currentVersion
    /// The dashboard's time when the first message could come.
    var start: Date
    var columns: Int
    var rows: Int
    var config: Config
    /// `--theme` as given; nil: the config's (or the default).
    var theme: String?
    /// `frameVariables` that were set, with their values.
    var environment: [String: String]

    init(start: Date, size: TerminalSize, config: Config, theme: String?, variables: [String: String]) {
        self.start = start
        columns = size.columns
        rows = size.rows
        self.config = config
        self.theme = theme
        environment = variables.filter { Self.frameVariables.contains($0.key) }
    }

    var size: TerminalSize { TerminalSize(columns: columns, rows: rows) }

    /// Why this header cannot be replayed by this host; nil when it can.
    var problem: String? {
        guard format == Self.formatName else { return "not a widgethost message log (format '\(format.prefix(64))')" }
        guard version == Self.currentVersion else {
            return "format version \(version) is not one this widgethost reads (\(Self.currentVersion))"
        }
        guard TerminalSize.bounds.contains(columns), TerminalSize.bounds.contains(rows) else {
            return "size \(columns)x\(rows) is outside \(TerminalSize.bounds.lowerBound)…\(TerminalSize.bounds.upperBound)"
        }
        guard start.timeIntervalSinceReferenceDate.isFinite, abs(start.timeIntervalSince1970) < 1e11 else {
            return "start time out of range"
        }
        if let name = environment.keys.first(where: { !Self.frameVariables.contains($0) }) {
            return "environment variable '\(name.prefix(64))' is not one a log records"
        }
        if environment.values.contains(where: { $0.utf8.count > 256 || $0.contains("\0") }) {
            return "an environment value is longer than 256 bytes or holds NUL"
        }
        if let path = config.path, path.utf8.count > 4096 || path.contains("\0") { return "config path too long or holds NUL" }
        if let theme, theme.utf8.count > 4096 || theme.contains("\0") { return "theme too long or holds NUL" }
        return nil
    }
}
