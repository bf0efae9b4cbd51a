import FoundationEssentials

/// One dated state of a widget, as in WidgetKit.
///
/// The host shows an entry once its `date` has come, never earlier, and keeps showing it until
/// the next entry's date (or a new timeline) replaces it.
public protocol TimelineEntry: Sendable {
    /// The moment from which this entry is shown (wall-clock time).
    var date: Date { get }
    /// How relevant the entry is compared with this provider's other entries; `nil` means no
    /// opinion.
    var relevance: TimelineEntryRelevance? { get }
    /// Where the entry leads (WidgetKit's `widgetURL`): `o` on its panel opens it. http, https
    /// or mailto (`Hyperlink.isAllowed`, in TerminalUI); nil: none.
    var url: String? { get }
}

extension TimelineEntry {
    public var relevance: TimelineEntryRelevance? { nil }
    public var url: String? { nil }
}

/// How much an entry matters, and for how long, as in WidgetKit's `TimelineEntryRelevance`.
///
/// `score` is on a scale the provider chooses and compares only with the scores of the
/// entries that same provider creates (across its timelines); 0 or less means "not relevant".
/// A host comparing widgets (the Smart Stack) uses `TimelineScheduler.relevance(of:now:)`,
/// which divides by the highest score the provider has given, so each provider's scale maps
/// to 0…1. `duration` is how many seconds after the entry's `date` the score counts; 0 (the
/// default) sets no limit, so the score counts while the entry is the current one.
public struct TimelineEntryRelevance: Sendable, Equatable, Hashable, Codable {
    public var score: Float
    public var duration: TimeInterval

    public init(score: Float, duration: TimeInterval = 0) {
        self.score = score
        self.duration = duration
    }
}
