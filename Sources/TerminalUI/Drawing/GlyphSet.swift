/// The characters drawing primitives use: Unicode box drawing and blocks, or plain ASCII.
///
/// Pass `.unicode` when the locale's character set is UTF-8 and `.ascii` otherwise
/// (`GlyphSet.forLocale(environment:)` decides from `LC_ALL`/`LC_CTYPE`/`LANG` as
/// `setlocale(LC_ALL, "")` would).
public struct GlyphSet: Hashable, Sendable {
    public var isUnicode: Bool
    public var topLeft: String
    public var topRight: String
    public var bottomLeft: String
    public var bottomRight: String
    public var horizontal: String
    public var vertical: String
    /// Marks truncated text: "…" or "...".
    public var ellipsis: String
    /// A full bar cell.
    public var barFull: String
    /// Bar cells filled 1/8 … 7/8 from the left; empty when the set has no partial blocks.
    public var barEighths: [String]
    /// The unfilled part of a bar.
    public var barTrack: String
    /// Sparkline levels from lowest to highest (8 of them).
    public var sparkLevels: [String]
    /// The unfilled part of a meter that shows its track (btop's dim dots): "·" or ".", so an
    /// idle meter is a visible rail rather than blank space.
    public var meterTrack: String { isUnicode ? "·" : "." }
    /// What a redacted (placeholder) glyph becomes: "▒" or "#".
    public var redaction: String { isUnicode ? "▒" : "#" }

    /// The same set with a heavy box (`┏━┓┃`, or `#=#` in ASCII): a border that must stand
    /// out where colour cannot say it (a critical alert outside the `fullColor` mode).
    public var heavy: GlyphSet {
        boxed(isUnicode ? ("┏", "┓", "┗", "┛", "━", "┃") : ("#", "#", "#", "#", "=", "#"))
    }

    /// The same set with a double box (`╔═╗║`, or `+=+` in ASCII): a warning's border outside
    /// the `fullColor` mode.
    public var double: GlyphSet {
        boxed(isUnicode ? ("╔", "╗", "╚", "╝", "═", "║") : ("+", "+", "+", "+", "=", "|"))
    }

    private func boxed(_ box: (String, String, String, String, String, String)) -> GlyphSet {
        var set = self
        (set.topLeft, set.topRight, set.bottomLeft, set.bottomRight, set.horizontal, set.vertical) = box
        return set
    }

    /// Box drawing, eighth blocks, "…".
    public static let unicode = GlyphSet(
        isUnicode: true, topLeft: "┌", topRight: "┐", bottomLeft: "└", bottomRight: "┘",
        horizontal: "─", vertical: "│", ellipsis: "…", barFull: "█",
        barEighths: ["▏", "▎", "▍", "▌", "▋", "▊", "▉"], barTrack: " ",
        sparkLevels: ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"])

    /// `+-|`, `#` bars, "...".
    public static let ascii = GlyphSet(
        isUnicode: false, topLeft: "+", topRight: "+", bottomLeft: "+", bottomRight: "+",
        horizontal: "-", vertical: "|", ellipsis: "...", barFull: "#", barEighths: [], barTrack: " ",
        sparkLevels: ["_", ".", ",", "-", "=", "+", "*", "#"])

    /// `.unicode` when the effective LC_CTYPE names UTF-8, else `.ascii`.
    ///
    /// The first of `LC_ALL`, `LC_CTYPE`, `LANG` that is set and non-empty decides, as for
    /// `setlocale(LC_ALL, "")`; none set means the C locale, hence ASCII.
    public static func forLocale(environment: [String: String]) -> GlyphSet {
        let name = ["LC_ALL", "LC_CTYPE", "LANG"].lazy.compactMap { environment[$0] }.first { !$0.isEmpty } ?? "C"
        let lower = name.lowercased()
        return lower.contains("utf-8") || lower.contains("utf8") ? .unicode : .ascii
    }
}
