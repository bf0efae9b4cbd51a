/// A provider's answer: dated entries and when to ask again.
///
/// Entries need not be sorted; the scheduler sorts them by date (stable for equal dates).
public struct Timeline<EntryType: TimelineEntry>: Sendable {
    public var entries: [EntryType]
    public var policy: TimelineReloadPolicy
    /// The policy's reload tries a failed fetch again (a widget waiting out its backoff or a
    /// server's Retry-After): a retry, free of the daily budget (DESIGN.md §3: outages spend
    /// nothing). Beyond WidgetKit; false for every ordinary timeline.
    public var policyRetriesFailure = false

    public init(entries: [EntryType], policy: TimelineReloadPolicy) {
        self.entries = entries
        self.policy = policy
    }

    /// The same timeline with its entry type erased, as the scheduler stores it.
    public var erased: AnyTimeline {
        var erased = AnyTimeline(entries: entries.map { $0 as any TimelineEntry }, policy: policy)
        erased.policyRetriesFailure = policyRetriesFailure
        return erased
    }
}

/// A timeline whose entry type is erased, so one scheduler can hold every widget kind.
public struct AnyTimeline: Sendable {
    public var entries: [any TimelineEntry]
    public var policy: TimelineReloadPolicy
    /// See `Timeline.policyRetriesFailure`.
    public var policyRetriesFailure = false

    public init(entries: [any TimelineEntry], policy: TimelineReloadPolicy) {
        self.entries = entries
        self.policy = policy
    }
}
