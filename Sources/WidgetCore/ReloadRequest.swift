import FoundationEssentials

/// Why a timeline is being requested.
public enum ReloadReason: String, Sendable, Equatable {
    /// The first timeline of a new instance.
    case initial
    /// The timeline's reload policy came due.
    case policy
    /// `WidgetCenter.reloadTimelines(ofKind:)` or `reloadAllTimelines()`.
    case widgetCenter
    /// The user asked (the `r` or `R` key).
    case user
    /// A retry after a failed or timed-out request (not counted against the daily budget).
    case retry
    /// The widget's environment changed: the wall clock was set, the panel's size changed.
    /// Free of the budget and the minimum interval, but not the user's: a retry wait stays.
    case environment
    /// `WidgetCenter` after a fetch failed (`WidgetCenter.Cause.outage`): the panel shows the
    /// failure. Free of the daily budget, held to the `WidgetCenter` burst like any.
    case outage
    /// `WidgetCenter` with the data a user's reload fetched (`WidgetCenter.Cause.answer`):
    /// free of the budget and of every interval — the user is waiting — and not itself the
    /// user's (the provider is not asked to fetch again).
    case answer
    /// `WidgetCenter` for a push (`WidgetCenter.Cause.push`): the push budget (one a second per
    /// instance, `TimelineScheduler.pushInterval`), never the daily one.
    case push
}

/// A timeline request the host must start now: call the instance's provider and answer with
/// `TimelineScheduler.deliver` or `fail`, quoting the generation.
public struct ReloadRequest: Sendable, Equatable {
    public var instance: WidgetInstanceID
    /// Tags the answer: an answer for an older generation is dropped.
    public var generation: UInt64
    public var reason: ReloadReason

    public init(instance: WidgetInstanceID, generation: UInt64, reason: ReloadReason) {
        self.instance = instance
        self.generation = generation
        self.reason = reason
    }

    public var isUserInitiated: Bool { reason == .user }
}

/// Identifies one widget instance (one panel) in a scheduler.
public struct WidgetInstanceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    public var description: String { "#\(rawValue)" }
}

/// What an `advance(to:)` changed: the panels to redraw and the requests to start.
public struct SchedulerChanges: Sendable, Equatable {
    /// Instances whose current entry changed (redraw them).
    public var entryChanged: [WidgetInstanceID] = []
    /// Timeline requests to start now.
    public var reloads: [ReloadRequest] = []
    /// Instances whose request timed out; their error is set and a retry is scheduled.
    public var timedOut: [WidgetInstanceID] = []

    public init() {}

    public var isEmpty: Bool { entryChanged.isEmpty && reloads.isEmpty && timedOut.isEmpty }
}

/// Why a reload failed, kept for the panel to show.
public struct ReloadFailure: Sendable, Equatable {
    /// A short human-readable reason ("timed out after 30 s").
    public var message: String
    /// When the failure was recorded.
    public var date: Date

    public init(message: String, date: Date) {
        self.message = message
        self.date = date
    }
}
