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
        /// A kind's reload with a reason the system's reloads do not have (`Cause`).
        case caused(String, Cause)

        /// The kind a request names; nil for `.all`.
        public var kind: String? {
            switch self {
            case .kind(let kind), .caused(let kind, _): kind
            case .all: nil
            }
        }

        /// Of two requests for one kind the one kept: the user's, then an answer to them, then
        /// the system's, a push, an outage.
        var strength: Int {
            switch self {
            case .all, .kind: 3
            case .caused(_, let cause): cause.strength
            }
        }
    }

    /// Why a reload is asked for beyond the system's own (DESIGN.md §3: the budget follows the
    /// request). Host extensions of WidgetKit's `reloadTimelines(ofKind:)`.
    public enum Cause: String, Sendable, Equatable, Hashable, CaseIterable {
        /// The user acted on a panel (an action such as the hero's heal): as their `r` on every
        /// panel of the kind — fetches at once, free of the budget.
        case user
        /// The data a user's reload fetched (its download's events): shown at once and free of
        /// the budget, however long the fetch took; the provider is not asked to fetch again.
        case answer
        /// A push (a server-sent event, an MQTT message): its own budget, one reload a second
        /// per panel, never the daily one.
        case push
        /// A fetch failed and brought only its failure: shown, free of the budget.
        case outage

        var strength: Int {
            switch self {
            case .user: 5
            case .answer: 4
            case .push: 2
            case .outage: 1
            }
        }
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

    /// Asks for new timelines for every widget of `kind` for `cause` (nil: the system's own
    /// reason, `reloadTimelines(ofKind:)`).
    public func reloadTimelines(ofKind kind: String, cause: Cause?) {
        enqueue(cause.map { .caused(kind, $0) } ?? .kind(kind))
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
            if s.pending.contains(request) { return nil }
            // `all` covers every request as strong as the system's; a stronger one (the user's,
            // an answer to them) stays beside it.
            if s.pending.contains(.all), request.strength <= Request.all.strength { return nil }
            // One request per kind: the stronger stays (the user's over the system's over an outage).
            if let kind = request.kind, let index = s.pending.firstIndex(where: { $0.kind == kind }) {
                if s.pending[index].strength < request.strength { s.pending[index] = request }
                return nil
            }
            if request == .all { s.pending.removeAll { $0.strength <= Request.all.strength } }
            s.pending.append(request)
            return wasEmpty ? s.wake : nil
        }
        wake?()
    }
}
