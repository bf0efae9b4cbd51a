import Synchronization

/// Lets any code ask the host for new timelines, as WidgetKit's `WidgetCenter`.
///
/// Safe to call from any thread or task. Requests are queued here and the host drains them on
/// its serial loop (`takeRequests()`), so the scheduler is never touched from elsewhere. The
/// host is told through the `wake` closure it connected, once per batch: a burst of requests
/// costs one wake-up and coalesces into one reload per instance.
public final class WidgetCenter: Sendable {
    /// A reload asked for through the center.
    public enum Request: Sendable, Equatable, Hashable {
        case kind(String)
        case all
        /// The kind's fetch failed: show it (free of the budget, `ReloadReason.outage`).
        case outage(String)
    }

    /// One configured widget, as `currentConfigurations()` reports it: WidgetKit's
    /// `WidgetInfo` (kind, family, and the configuration the user chose).
    public struct WidgetInfo: Sendable, Equatable {
        public var kind: String
        public var family: WidgetFamily
        /// The panel's title.
        public var title: String
        /// The options from the user's config, defaults filled in.
        public var options: WidgetOptions

        public init(kind: String, family: WidgetFamily, title: String, options: WidgetOptions = WidgetOptions()) {
            self.kind = kind
            self.family = family
            self.title = title
            self.options = options
        }
    }

    private struct State {
        var pending: [Request] = []
        var wake: (@Sendable () -> Void)?
        var configurations: [WidgetInfo] = []
    }

    private let state = Mutex(State())

    /// The center of the running host.
    public static let shared = WidgetCenter()

    public init() {}

    /// Asks for new timelines for every widget of `kind`.
    public func reloadTimelines(ofKind kind: String) {
        enqueue(.kind(kind))
    }

    /// Asks for new timelines for every widget of `kind` after its fetch failed and brought
    /// nothing new but the failure (`afterFailure`): such a reload spends no budget, so an
    /// outage costs nothing. A host extension; `afterFailure: false` is `reloadTimelines(ofKind:)`.
    public func reloadTimelines(ofKind kind: String, afterFailure: Bool) {
        enqueue(afterFailure ? .outage(kind) : .kind(kind))
    }

    /// Asks for new timelines for every widget.
    public func reloadAllTimelines() {
        enqueue(.all)
    }

    /// The widgets the user configured, in the order they were added (the host's own
    /// instances, such as the status bar's clock, are not listed).
    public func currentConfigurations() -> [WidgetInfo] {
        state.withLock { $0.configurations }
    }

    // MARK: Host side

    /// Connects the host: `wake` is called (on the caller's thread) when requests arrive
    /// while none were pending; the host then calls `takeRequests()` on its loop.
    public func connect(wake: @escaping @Sendable () -> Void) {
        let hasPending = state.withLock { s -> Bool in
            s.wake = wake
            return !s.pending.isEmpty
        }
        if hasPending { wake() }
    }

    /// Takes the queued requests, without duplicates, in the order they were first made.
    public func takeRequests() -> [Request] {
        state.withLock { s in
            defer { s.pending.removeAll() }
            return s.pending
        }
    }

    /// Publishes what the host shows, for `currentConfigurations()`.
    public func publish(_ configurations: [WidgetInfo]) {
        state.withLock { $0.configurations = configurations }
    }

    private func enqueue(_ request: Request) {
        let wake = state.withLock { s -> (@Sendable () -> Void)? in
            let wasEmpty = s.pending.isEmpty
            if s.pending.contains(.all) || s.pending.contains(request) { return nil }
            // A kind's reload with data covers its outage reload: the stronger one stays.
            if case .outage(let kind) = request, s.pending.contains(.kind(kind)) { return nil }
            if case .kind(let kind) = request { s.pending.removeAll { $0 == .outage(kind) } }
            if request == .all { s.pending.removeAll() }
            s.pending.append(request)
            return wasEmpty ? s.wake : nil
        }
        wake?()
    }
}
