import FoundationEssentials

/// The source of a widget's entries, as WidgetKit's `TimelineProvider`.
///
/// `placeholder(in:)` must answer at once without I/O (the host draws it redacted while the
/// first timeline loads). `snapshot(in:)` and `timeline(in:)` may take time; they run off the
/// host's serial loop and their answers come back to it as messages. A provider must not wait
/// on the network: start a download on a background session and answer from what it has.
public protocol TimelineProvider: Sendable {
    associatedtype Entry: TimelineEntry
    typealias Context = TimelineProviderContext

    /// A representative entry with no real data, shown redacted while loading.
    func placeholder(in context: Context) -> Entry
    /// One entry for a preview or snapshot of the widget.
    func snapshot(in context: Context) async -> Entry
    /// The entries to show from now on and when to ask again.
    ///
    /// Throwing keeps the panel's current entry; the error is shown on the panel and the host
    /// retries with backoff.
    func timeline(in context: Context) async throws -> Timeline<Entry>
    /// The timeline computed now, on the host's loop, when this call is cheap and cannot block
    /// (nothing to read from disk, decode or wait for); nil: `timeline(in:)` runs off the loop
    /// as usual. Saves a provider thread's round trip per reload. Default: nil.
    func timelineOnLoop(in context: Context) -> Timeline<Entry>?
    /// How long a call may take before the host gives up on it, when that is longer than the
    /// host's own limit (`SchedulerConfiguration.requestTimeout`): an extension's
    /// `requestSeconds`, so the extension's own timeout comes first. Default: nil.
    var requestTimeout: TimeInterval? { get }
}

extension TimelineProvider {
    public func timelineOnLoop(in context: Context) -> Timeline<Entry>? { nil }
    public var requestTimeout: TimeInterval? { nil }
}

/// A provider whose entry type is erased, so the host can hold providers of every kind.
public struct AnyTimelineProvider: Sendable {
    private let _placeholder: @Sendable (TimelineProviderContext) -> any TimelineEntry
    private let _snapshot: @Sendable (TimelineProviderContext) async -> any TimelineEntry
    private let _timeline: @Sendable (TimelineProviderContext) async throws -> AnyTimeline
    private let _timelineOnLoop: @Sendable (TimelineProviderContext) -> AnyTimeline?
    /// See `TimelineProvider.requestTimeout`.
    public let requestTimeout: TimeInterval?

    public init<P: TimelineProvider>(_ provider: P) {
        requestTimeout = provider.requestTimeout
        _placeholder = { provider.placeholder(in: $0) }
        _snapshot = { await provider.snapshot(in: $0) }
        _timeline = { try await provider.timeline(in: $0).erased }
        _timelineOnLoop = { provider.timelineOnLoop(in: $0)?.erased }
    }

    public func placeholder(in context: TimelineProviderContext) -> any TimelineEntry { _placeholder(context) }
    public func snapshot(in context: TimelineProviderContext) async -> any TimelineEntry { await _snapshot(context) }
    public func timeline(in context: TimelineProviderContext) async throws -> AnyTimeline { try await _timeline(context) }
    public func timelineOnLoop(in context: TimelineProviderContext) -> AnyTimeline? { _timelineOnLoop(context) }
}
