import FoundationEssentials

/// What the timelines (`TimelineState`) ask their host to do: they decide (which call to start,
/// which to cancel, when to wake), the host runs it. A standalone driver runs its effects
/// itself (`TimelineDriver.run(_:)`); the dashboard's program takes them as its own effects,
/// so that provider answers, timer firings and reload requests come back as messages.
public enum TimelineEffect: Sendable, Equatable {
    /// Call an instance's provider; the answer goes back with `TimelineDriver.receive(_:)`.
    case start(ProviderCall)
    /// Cancel an instance's running provider call (it timed out, or the instance went).
    case cancel(WidgetInstanceID)
    /// Arm the one wake-up at this date (nil: none), replacing the one armed; when it fires,
    /// `TimelineDriver.wake()`.
    case arm(Date?)
    /// Publish the widgets `WidgetCenter.currentConfigurations()` lists (instances came or went).
    case publish([WidgetCenter.WidgetInfo])
}

/// One provider call to start: the request it answers, and what the provider is called with.
public struct ProviderCall: Sendable, Equatable {
    public var request: ReloadRequest
    public var provider: AnyTimelineProvider
    public var context: TimelineProviderContext
    /// The provider runs on the loop's thread (`WidgetManifest.runsOnLoop`).
    public var onLoop: Bool

    public init(request: ReloadRequest, provider: AnyTimelineProvider, context: TimelineProviderContext, onLoop: Bool) {
        self.request = request
        self.provider = provider
        self.context = context
        self.onLoop = onLoop
    }

    /// Calls are the same when they answer the same request in the same context (a provider
    /// is a closure and has no equality of its own).
    public static func == (a: Self, b: Self) -> Bool {
        a.request == b.request && a.context == b.context && a.onLoop == b.onLoop
    }
}

/// A provider's answer to one request: a timeline, or why there is none.
public struct ProviderAnswer: Sendable, Equatable {
    public var request: ReloadRequest
    public var result: Result<AnyTimeline, any Error>

    public init(request: ReloadRequest, result: Result<AnyTimeline, any Error>) {
        self.request = request
        self.result = result
    }

    /// The failure's text as the panel shows it; nil for a timeline.
    public var failure: String? {
        if case .failure(let error) = result { return TimelineDriver.describe(error) }
        return nil
    }

    /// Answers are the same when they answer the same request the same way: the same
    /// failure, or timelines with the same dates and policy, retrying or not (entries have no
    /// equality).
    public static func == (a: Self, b: Self) -> Bool {
        guard a.request == b.request else { return false }
        switch (a.result, b.result) {
        case (.success(let x), .success(let y)):
            return x.entries.map(\.date) == y.entries.map(\.date) && x.policy == y.policy
                && x.policyRetriesFailure == y.policyRetriesFailure
        case (.failure, .failure):
            return a.failure == b.failure
        default:
            return false
        }
    }
}
