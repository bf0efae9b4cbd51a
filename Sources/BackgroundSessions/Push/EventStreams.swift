import CCurl
import Glibc
import Synchronization

/// Identifies one event stream opened with `CurlTransport.openEventStream`.
public struct EventStreamID: Hashable, Sendable {
    public let rawValue: UInt64
}

/// What an event stream reports, on the transport's network thread.
public enum EventStreamUpdate: Sendable, Equatable {
    /// Connected: the server answered 200 with `text/event-stream`.
    case connected
    /// One event the push budget let through (`collapsed`: how many events it stands for).
    case event(ServerSentEvent, collapsed: Int)
    /// The connection ended or could not be made; it is tried again in `retryIn`.
    case disconnected(reason: String, retryIn: Duration)
}

/// The rules of a streaming connection (see `CurlTransport.openEventStream`).
public struct EventStreamConfiguration: Sendable, Equatable {
    /// The reconnection delay when the server gave no `retry:`.
    public var defaultRetry: Duration = .seconds(2)
    /// A server's `retry:` is clamped to this range.
    public var retryRange: ClosedRange<Duration> = .milliseconds(250) ... .seconds(60)
    /// Failed attempts in a row double the delay up to this.
    public var maxBackoff: Duration = .seconds(30)
    /// A connection that lasted less than this counts as a failure (a server that accepts and
    /// closes at once cannot make the host reconnect at its `retry:` rate for ever).
    public var healthyAfter: Duration = .seconds(5)
    /// The push budget's spacing (`PushBudget`).
    public var budgetSpacing: Duration = .seconds(1)
    /// Bounds of the parser (`EventStreamParser`).
    public var maxLineBytes = 16 * 1024
    public var maxEventBytes = 64 * 1024
    /// TCP keep-alive probes (kernel timers, no wake-up of ours): idle time before the first,
    /// and the interval between them. A peer that vanished is noticed after about
    /// idle + 9 × interval, the connection then fails and reconnects.
    public var tcpKeepIdle: Duration = .seconds(60)
    public var tcpKeepInterval: Duration = .seconds(20)

    public init() {}

    /// The wait before the next attempt after `failures` failed attempts in a row (0: the
    /// connection was healthy and ended), with the server's `retry:` in milliseconds if any.
    public func delay(failures: Int, serverRetryMilliseconds: UInt64?) -> Duration {
        var base = defaultRetry
        if let ms = serverRetryMilliseconds {
            base = .milliseconds(Int64(clamping: min(ms, UInt64(Int64.max))))
        }
        base = min(max(base, retryRange.lowerBound), retryRange.upperBound)
        var delay = base
        for _ in 0..<min(max(0, failures - 1), 16) {
            delay = delay * 2
            if delay >= maxBackoff { return max(maxBackoff, base) }
        }
        return delay
    }
}

extension CurlTransport {
    /// Opens a long-lived `GET` of `url` as `text/event-stream` on the network thread (no thread
    /// of its own): reconnects after `retry:` with backoff, sending `Last-Event-ID`; `updates`
    /// gets what happens, on the network thread (keep it quick). Events pass the push budget
    /// (`EventStreamConfiguration.budgetSpacing`) first.
    ///
    /// No timeout on the body and no low-speed limit (a quiet stream sends nothing, and must
    /// cost no wake-up): a connect timeout (`connectTimeout`) and TCP keep-alive probes bound a
    /// dead connection instead.
    public func openEventStream(url: String, lastEventID: String = "",
                                configuration: EventStreamConfiguration = EventStreamConfiguration(),
                                updates: @escaping @Sendable (EventStreamUpdate) -> Void) -> EventStreamID {
        let id = EventStreamID(rawValue: mailbox.shared.withLock { s -> UInt64 in
            defer { s.nextID += 1 }
            return s.nextID
        })
        _ = mailbox.send(.openStream(id, url, lastEventID, configuration, updates))
        return id
    }

    /// Closes a stream (no further updates once the network thread has taken the command).
    public func closeEventStream(_ id: EventStreamID) {
        _ = mailbox.send(.closeStream(id))
    }
}

/// The event streams of one `NetworkLoop`. Only the network thread touches it.
final class EventStreams {
    final class Stream {
        let id: EventStreamID
        let url: String
        let configuration: EventStreamConfiguration
        let updates: @Sendable (EventStreamUpdate) -> Void
        var parser: EventStreamParser
        var budget: PushBudget
        var collapsed = 0
        var latest: ServerSentEvent?
        var easy: UnsafeMutableRawPointer?
        var headerList: UnsafeMutablePointer<curl_slist>?
        var notBefore: ContinuousClock.Instant?
        var failures = 0
        var connectedAt: ContinuousClock.Instant?
        var refusal: String?
        let errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: Int(CURL_ERROR_SIZE) + 1)

        init(id: EventStreamID, url: String, lastEventID: String, configuration: EventStreamConfiguration,
             updates: @escaping @Sendable (EventStreamUpdate) -> Void) {
            self.id = id
            self.url = url
            self.configuration = configuration
            self.updates = updates
            parser = EventStreamParser(maxLineBytes: configuration.maxLineBytes, maxEventBytes: configuration.maxEventBytes,
                                       lastEventID: lastEventID)
            budget = PushBudget(spacing: configuration.budgetSpacing)
            errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        }

        deinit { errorBuffer.deallocate() }

        /// End of the response's head: a 200 of `text/event-stream` connects; a redirect
        /// passes; anything else is refused (false aborts the transfer).
        func headersEnded() -> Bool {
            guard let easy else { return false }
            var status = 0
            wh_curl_easy_getinfo_long(easy, CURLINFO_RESPONSE_CODE, &status)
            if (300..<400).contains(status) { return true }
            var type: UnsafeMutablePointer<CChar>?
            wh_curl_easy_getinfo_string(easy, CURLINFO_CONTENT_TYPE, &type)
            let contentType = type.map { String(cString: $0).lowercased() } ?? ""
            guard status == 200 else { refusal = "server answered \(status)"; return false }
            guard contentType.hasPrefix("text/event-stream") else {
                refusal = "not an event stream (\(Transfer.printable(Substring(contentType), limit: 60)))"
                return false
            }
            connectedAt = .now
            updates(.connected)
            return true
        }

        func body(_ bytes: UnsafeRawBufferPointer) {
            let now = ContinuousClock.now
            parser.feed(bytes) { event in
                if budget.eventArrived(at: now) {
                    updates(.event(event, collapsed: collapsed + 1))
                    collapsed = 0
                    latest = nil
                } else {
                    collapsed += 1
                    latest = event
                }
            }
        }

        /// Sends the collapsed event if its time has come.
        func flushDue(at now: ContinuousClock.Instant) {
            guard budget.takeDue(at: now), let event = latest else { return }
            updates(.event(event, collapsed: collapsed))
            collapsed = 0
            latest = nil
        }
    }

    private let multi: UnsafeMutableRawPointer
    private let configuration: CurlTransportConfiguration
    private let noProxy: String
    private var streams: [EventStreamID: Stream] = [:]
    private var byEasy: [UnsafeMutableRawPointer: Stream] = [:]

    init(multi: UnsafeMutableRawPointer, configuration: CurlTransportConfiguration, noProxy: String) {
        self.multi = multi
        self.configuration = configuration
        self.noProxy = noProxy
    }

    func open(_ id: EventStreamID, url: String, lastEventID: String, configuration: EventStreamConfiguration,
              updates: @escaping @Sendable (EventStreamUpdate) -> Void) {
        let stream = Stream(id: id, url: url, lastEventID: lastEventID, configuration: configuration, updates: updates)
        streams[id] = stream
        connect(stream)
    }

    func close(_ id: EventStreamID) {
        guard let stream = streams.removeValue(forKey: id) else { return }
        release(stream)
    }

    func closeAll() {
        for id in Array(streams.keys) { close(id) }
    }

    /// Starts the attempts whose wait is over and sends collapsed events that are due.
    func startDue() {
        let now = ContinuousClock.now
        for stream in streams.values {
            stream.flushDue(at: now)
            if let t = stream.notBefore, t <= now {
                stream.notBefore = nil
                connect(stream)
            }
        }
    }

    /// The earliest reconnection or queued event, if any (nil: nothing to wake for).
    var nextWake: ContinuousClock.Instant? {
        var wake: ContinuousClock.Instant?
        for stream in streams.values {
            for t in [stream.notBefore, stream.budget.queuedAt] {
                if let t { wake = min(wake ?? t, t) }
            }
        }
        return wake
    }

    /// If `easy` is one of the streams' handles: that attempt ended with `code`; true.
    func ended(_ easy: UnsafeMutableRawPointer, code: CURLcode) -> Bool {
        guard let stream = byEasy[easy] else { return false }
        let now = ContinuousClock.now
        stream.flushDue(at: now)
        let healthy = stream.connectedAt.map { $0.duration(to: now) >= stream.configuration.healthyAfter } ?? false
        var reason: String
        if let refusal = stream.refusal {
            reason = refusal
        } else if stream.connectedAt != nil {
            reason = code == CURLE_OK ? "the server closed the stream" : "stream lost: \(Self.text(stream, code))"
        } else {
            reason = "cannot connect: \(Self.text(stream, code))"
        }
        reason = URLRedaction.redactingURLs(in: reason)
        release(stream)
        stream.failures = healthy ? 0 : stream.failures + 1
        let delay = stream.configuration.delay(failures: stream.failures, serverRetryMilliseconds: stream.parser.retryMilliseconds)
        stream.notBefore = now + delay
        stream.updates(.disconnected(reason: reason, retryIn: delay))
        return true
    }

    private static func text(_ stream: Stream, _ code: CURLcode) -> String {
        let buffer = String(cString: stream.errorBuffer)
        return Transfer.printable(Substring(buffer.isEmpty ? String(cString: curl_easy_strerror(code)) : buffer), limit: 120)
    }

    private func connect(_ stream: Stream) {
        guard let easy = curl_easy_init() else {
            stream.failures += 1
            let delay = stream.configuration.delay(failures: stream.failures, serverRetryMilliseconds: stream.parser.retryMilliseconds)
            stream.notBefore = .now + delay
            stream.updates(.disconnected(reason: "curl_easy_init failed", retryIn: delay))
            return
        }
        stream.parser.reset()
        stream.easy = easy
        stream.connectedAt = nil
        stream.refusal = nil
        stream.errorBuffer[0] = 0
        let context = Unmanaged.passUnretained(stream).toOpaque()
        wh_curl_easy_setopt_string(easy, CURLOPT_URL, stream.url)
        wh_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        wh_curl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR,
                                   NetworkLoop.redirectProtocols(for: NetworkLoop.hostKey(stream.url) ?? "",
                                                                 allowingDowngrade: configuration.allowsHTTPSDowngrade))
        wh_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, 1)
        wh_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, configuration.maxRedirects)
        wh_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        wh_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, NetworkLoop.milliseconds(configuration.connectTimeout))
        wh_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPALIVE, 1)
        wh_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPIDLE, max(1, NetworkLoop.milliseconds(stream.configuration.tcpKeepIdle) / 1000))
        wh_curl_easy_setopt_long(easy, CURLOPT_TCP_KEEPINTVL, max(1, NetworkLoop.milliseconds(stream.configuration.tcpKeepInterval) / 1000))
        wh_curl_easy_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent)
        if let proxy = configuration.proxy { wh_curl_easy_setopt_string(easy, CURLOPT_PROXY, proxy) }
        wh_curl_easy_setopt_string(easy, CURLOPT_NOPROXY, noProxy)
        wh_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, stream.errorBuffer)
        wh_curl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, eventStreamWriteCallback)
        wh_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        wh_curl_easy_setopt_header_callback(easy, eventStreamHeaderCallback)
        wh_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        var list: UnsafeMutablePointer<curl_slist>?
        list = curl_slist_append(list, "Accept: text/event-stream")
        list = curl_slist_append(list, "Cache-Control: no-cache")
        let lastID = stream.parser.lastEventID
        if !lastID.isEmpty, !lastID.utf8.contains(where: { $0 < 32 || $0 == 127 }) {
            list = curl_slist_append(list, "Last-Event-ID: \(lastID)")
        }
        stream.headerList = list
        if let list { wh_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list) }
        byEasy[easy] = stream
        curl_multi_add_handle(multi, easy)
    }

    private func release(_ stream: Stream) {
        if let easy = stream.easy {
            byEasy[easy] = nil
            curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
            stream.easy = nil
        }
        if let list = stream.headerList { curl_slist_free_all(list) }
        stream.headerList = nil
    }
}

// MARK: - curl callbacks (the context is the unretained Stream)

let eventStreamWriteCallback: wh_curl_data_callback = { pointer, size, count, context in
    let stream = Unmanaged<EventStreams.Stream>.fromOpaque(context!).takeUnretainedValue()
    let length = size * count
    // Bytes before the head was accepted (a redirect's body) are not the stream.
    guard stream.connectedAt != nil else { return length }
    stream.body(UnsafeRawBufferPointer(start: pointer, count: length))
    return length
}

let eventStreamHeaderCallback: wh_curl_header_callback = { pointer, size, count, context in
    let stream = Unmanaged<EventStreams.Stream>.fromOpaque(context!).takeUnretainedValue()
    let length = size * count
    let line = UnsafeRawBufferPointer(start: pointer, count: length)
    // The blank line ends a head (of each response in a redirect chain).
    if line.count <= 2, line.allSatisfy({ $0 == 13 || $0 == 10 }) {
        return stream.headersEnded() ? length : 0
    }
    return length
}
