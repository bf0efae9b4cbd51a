import Synchronization

/// Widgets' push sources (DESIGN.md §8): one event stream per distinct URL, shared by every
/// widget that names it, on the transport's network thread.
///
/// A widget subscribes with a key (its kind and session, say) and two handlers, called on the
/// network thread: `onEvent` for each event the stream's push budget lets through (a burst
/// is one call now and one a second later; see `PushBudget`), `onStatus` when the stream goes
/// up or down (`isLive(_:)` tells which). Thread-safe.
public final class PushCenter: Sendable {
    /// Opens a stream and returns what closes it.
    public typealias Opener = @Sendable (_ url: String, _ updates: @escaping @Sendable (EventStreamUpdate) -> Void)
        -> @Sendable () -> Void

    private struct Subscriber {
        var onEvent: @Sendable () -> Void
        var onStatus: @Sendable () -> Void
        /// Subscriptions held under this key (a panel rebuilt by a config reload subscribes
        /// again before its old provider lets go).
        var holders = 1
    }

    /// One subscription, held by the panel's provider for its life: when the last holder of a
    /// key lets go the key is dropped, and a URL left with no key has its stream closed — a
    /// panel removed by a config reload takes its stream with it, without the host knowing
    /// which widgets push.
    public final class Subscription: Sendable {
        private let center: PushCenter
        private let url: String
        private let key: String

        fileprivate init(center: PushCenter, url: String, key: String) {
            self.center = center
            self.url = url
            self.key = key
        }

        deinit { center.release(url: url, key: key) }
    }

    private struct Source {
        var live = false
        var subscribers: [String: Subscriber] = [:]
        var lastReason: String?
        var close: (@Sendable () -> Void)?
    }

    /// Starts driving a connection of another protocol and returns what stops it; nil when it
    /// cannot be driven.
    public typealias Watcher = @Sendable (any NetworkSocketClient) -> (@Sendable () -> Void)?

    private let open: Opener
    private let watcher: Watcher?
    private let sources = Mutex<[String: Source]>([:])

    /// Streams opened through `open`, connections driven by `watch` (tests pass their own).
    public init(open: @escaping Opener, watch: Watcher? = nil) {
        self.open = open
        watcher = watch
    }

    /// Streams and connections on `transport`'s network thread.
    public convenience init(transport: CurlTransport, configuration: EventStreamConfiguration = EventStreamConfiguration()) {
        self.init(open: { [weak transport] url, updates in
            guard let transport else { return {} }
            let id = transport.openEventStream(url: url, configuration: configuration, updates: updates)
            return { [weak transport] in transport?.closeEventStream(id) }
        }, watch: { [weak transport] client in
            guard let transport, let id = transport.watch(client) else { return nil }
            return { [weak transport] in transport?.unwatch(id) }
        })
    }

    /// A push source of another protocol (an MQTT broker's connection): driven on the
    /// transport's network thread for as long as the returned lease is held; nil when this
    /// center has no such loop.
    public func watch(_ client: any NetworkSocketClient) -> Lease? {
        guard let stop = watcher?(client) else { return nil }
        return Lease(stop)
    }

    /// Held by a panel's provider for the life of its connection; letting go stops it.
    public final class Lease: Sendable {
        private let stop: @Sendable () -> Void
        fileprivate init(_ stop: @escaping @Sendable () -> Void) { self.stop = stop }
        deinit { stop() }
    }

    /// Subscribes `key` to `url` (replacing its handlers if it was) for as long as the returned
    /// subscription is held; the first subscriber of a URL opens its stream.
    public func subscribe(url: String, key: String, onEvent: @escaping @Sendable () -> Void,
                          onStatus: @escaping @Sendable () -> Void) -> Subscription {
        let isNew = sources.withLock { s -> Bool in
            let isNew = s[url] == nil
            let holders = (s[url]?.subscribers[key]?.holders ?? 0) + 1
            s[url, default: Source()].subscribers[key] = Subscriber(onEvent: onEvent, onStatus: onStatus, holders: holders)
            return isNew
        }
        let subscription = Subscription(center: self, url: url, key: key)
        guard isNew else { return subscription }
        let close = open(url) { [weak self] update in self?.received(update, url: url) }
        let orphan = sources.withLock { s -> Bool in
            guard s[url] != nil else { return true }
            s[url]?.close = close
            return false
        }
        if orphan { close() }
        return subscription
    }

    /// One holder of `key` let go; the last one drops it, and the stream of a URL left with no
    /// key is closed.
    private func release(url: String, key: String) {
        let close = sources.withLock { s -> (@Sendable () -> Void)? in
            guard var source = s[url], var subscriber = source.subscribers[key] else { return nil }
            subscriber.holders -= 1
            source.subscribers[key] = subscriber.holders > 0 ? subscriber : nil
            guard source.subscribers.isEmpty else {
                s[url] = source
                return nil
            }
            s[url] = nil
            return source.close
        }
        close?()
    }

    /// URLs with an open (or reconnecting) stream.
    public var urls: Set<String> { sources.withLock { Set($0.keys) } }

    /// Whether `url`'s stream is connected now.
    public func isLive(_ url: String) -> Bool {
        sources.withLock { $0[url]?.live ?? false }
    }

    private func received(_ update: EventStreamUpdate, url: String) {
        let (handlers, statusChanged) = sources.withLock { s -> ([Subscriber], Bool) in
            guard var source = s[url] else { return ([], false) }
            let wasLive = source.live
            switch update {
            case .connected: source.live = true
            case .disconnected(let reason, _): source.live = false; source.lastReason = reason
            case .event: break
            }
            s[url] = source
            return (Array(source.subscribers.values), wasLive != source.live)
        }
        switch update {
        case .event:
            for handler in handlers { handler.onEvent() }
        default:
            if statusChanged { for handler in handlers { handler.onStatus() } }
        }
    }
}
