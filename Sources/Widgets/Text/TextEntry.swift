import FoundationEssentials
import WidgetCore

/// One moment of a `text` panel: the text to show, or why there is none.
public struct TextEntry: TimelineEntry, Equatable, Codable {
    public var date: Date
    /// The text (control characters still in it: the cell buffer shows them inert).
    public var text: String
    /// A problem to show instead of or under the text ("no file at …", "cannot read …",
    /// "only the first 1 MiB is shown"); nil when all is well.
    public var notice: String?
    /// True when `notice` means nothing could be shown (a missing file).
    public var isError: Bool
    public var wrap: Bool

    public init(date: Date, text: String, notice: String? = nil, isError: Bool = false, wrap: Bool) {
        self.date = date
        self.text = text
        self.notice = notice
        self.isError = isError
        self.wrap = wrap
    }
}
