import FoundationEssentials

/// One dated state of a widget, as in WidgetKit.
///
/// The host shows an entry once its `date` has come, never earlier, and keeps showing it until
/// the next entry's date (or a new timeline) replaces it.
public protocol TimelineEntry: Sendable {
    /// The moment from which this entry is shown (wall-clock time).
    var date: Date { get }
    /// How relevant the entry is compared with other widgets' entries; `nil` means no opinion.
    var relevance: TimelineEntryRelevance? { get }
}

extension TimelineEntry {
    public var relevance: TimelineEntryRelevance? { nil }
}

/// How much an entry matters, and for how long, as in WidgetKit's `TimelineEntryRelevance`.
///
/// Scores are relative between the entries a host compares; `duration` (seconds, 0 = until the
/// next entry) limits how long the score holds.
public struct TimelineEntryRelevance: Sendable, Equatable, Hashable {
    public var score: Float
    public var duration: TimeInterval

    public init(score: Float, duration: TimeInterval = 0) {
        self.score = score
        self.duration = duration
    }
}
