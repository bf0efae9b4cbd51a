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
    }

    private struct Source {
        var live = false
        var subscribers: [String: Subscriber] = [:]
        var lastReason: String?
        var close: (@Sendable () -> Void)?
    }

    private let open: Opener
    private let sources = Mutex<[String: Source]>([:])

    /// Streams opened through `open` (tests pass their own).
    public init(open: @escaping Opener) {
        self.open = open
    }

    /// Streams on `transport`'s network thread.
    public convenience init(transport: CurlTransport, configuration: EventStreamConfiguration = EventStreamConfiguration()) {
        self.init { [weak transport] url, updates in
            guard let transport else { return {} }
            let id = transport.openEventStream(url: url, configuration: configuration, updates: updates)
            return { [weak transport] in transport?.closeEventStream(id) }
        }
    }

    /// Subscribes `key` to `url` (replacing its handlers if it was); the first subscriber of a
    /// URL opens its stream.
    public func subscribe(url: String, key: String, onEvent: @escaping @Sendable () -> Void,
                          onStatus: @escaping @Sendable () -> Void) {
        let isNew = sources.withLock { s -> Bool in
            let isNew = s[url] == nil
            s[url, default: Source()].subscribers[key] = Subscriber(onEvent: onEvent, onStatus: onStatus)
            return isNew
        }
        guard isNew else { return }
        let close = open(url) { [weak self] update in self?.received(update, url: url) }
        let orphan = sources.withLock { s -> Bool in
            guard s[url] != nil else { return true }
            s[url]?.close = close
            return false
        }
        if orphan { close() }
    }

    /// Keeps only the subscribers whose key is in `keys` (after a config change); a URL left
    /// with none has its stream closed.
    public func retain(keys: Set<String>) {
        let closing = sources.withLock { s -> [@Sendable () -> Void] in
            var closing: [@Sendable () -> Void] = []
            for (url, var source) in s {
                source.subscribers = source.subscribers.filter { keys.contains($0.key) }
                if source.subscribers.isEmpty {
                    s[url] = nil
                    if let close = source.close { closing.append(close) }
                } else {
                    s[url] = source
                }
            }
            return closing
        }
        for close in closing { close() }
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
