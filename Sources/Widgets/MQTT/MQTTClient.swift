import BackgroundSessions
import CLinux
import CMosquitto
import FoundationEssentials
import Glibc
import Synchronization

/// One panel's connection to its broker, on libmosquitto, driven by the transport's network
/// thread (`NetworkSocketClient`): no thread of its own and no timer tick. The thread waits on
/// its socket with curl's; its deadline is the next of: the keepalive ping (from the last
/// traffic, not a tick), the connect timeout, the reconnect, the collapsed push. A quiet broker
/// costs no wake-up between pings.
///
/// Messages go into the panel's `MQTTTopicTable` (bounded) under a lock the provider reads;
/// then the `mqtt` kind reloads through `changed`, under the push budget: at most one reload a
/// `pushSpacing`, a burst collapsed into one more at its end (the latest value wins). Going up
/// or down reloads at once. A lost connection is tried again with `MQTTBackoff`.
///
/// Credentials go to libmosquitto only; no reason shown or kept quotes them (libmosquitto's
/// own log is not enabled).
final class MQTTClient: NetworkSocketClient, @unchecked Sendable {
    struct Settings: Sendable {
        /// Seconds between pings on a quiet connection (MQTT keepalive; libmosquitto takes 5
        /// or more).
        var keepalive = 60
        /// From the connect call to the broker's CONNACK.
        var connectTimeout: Duration = .seconds(10)
        var backoff = MQTTBackoff()
        var pushSpacing: Duration = .seconds(1)
        /// Packets read in one wake-up at most (a retained flood yields to the transfers).
        var packetsPerWake = 1_000
    }

    /// How the connection stands, as the panel shows it.
    enum Link: Sendable, Equatable {
        case connecting
        case live
        /// Lost or refused, tried again after a backoff.
        case down(reason: String)
    }

    /// What the provider reads.
    struct State: Sendable {
        var table: MQTTTopicTable
        var link: Link = .connecting
        /// Connections the broker accepted so far (a reconnect counts one more).
        var connections = 0
        /// Subscriptions the broker acknowledged (SUBACK) so far.
        var acknowledged = 0
    }

    let panel: MQTTPanel
    let settings: Settings
    private let shared: Mutex<State>
    private let changed: @Sendable () -> Void
    private let wallNow: @Sendable () -> Date

    // The network thread's alone.
    private enum Phase {
        case idle
        case connecting(since: ContinuousClock.Instant)
        case connected
        case waiting(until: ContinuousClock.Instant)
    }
    private var handle: OpaquePointer?
    private var phase = Phase.idle
    private var failures = 0
    private var connectedAt: ContinuousClock.Instant?
    /// Our estimates of libmosquitto's last packet out and in (never earlier than its own), for
    /// the keepalive deadline.
    private var lastSent = ContinuousClock.now
    private var lastReceived = ContinuousClock.now
    private var budget: PushBudget
    private var unshown = false
    private var refusal: String?
    private var now = ContinuousClock.now

    init(panel: MQTTPanel, settings: Settings = Settings(), now wallNow: @escaping @Sendable () -> Date,
         changed: @escaping @Sendable () -> Void) {
        self.panel = panel
        self.settings = settings
        self.wallNow = wallNow
        self.changed = changed
        shared = Mutex(State(table: MQTTTopicTable(fields: panel.fields)))
        budget = PushBudget(spacing: settings.pushSpacing)
        _ = Self.libraryReady
    }

    /// What the panel shows now (any thread).
    var state: State { shared.withLock { $0 } }

    private static let libraryReady: Bool = mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue
    private static let clientNumber = Atomic<Int>(0)

    // MARK: - NetworkSocketClient (network thread)

    func start(now: ContinuousClock.Instant) {
        self.now = now
        connect()
    }

    func interest(now: ContinuousClock.Instant) -> NetworkSocketInterest {
        var deadline = budget.queuedAt
        func sooner(_ t: ContinuousClock.Instant) { deadline = min(deadline ?? t, t) }
        switch phase {
        case .idle:
            return NetworkSocketInterest(deadline: deadline)
        case .waiting(let until):
            sooner(until)
            return NetworkSocketInterest(deadline: deadline)
        case .connecting(let since):
            sooner(since + settings.connectTimeout)
        case .connected:
            sooner(min(lastSent, lastReceived) + .seconds(settings.keepalive) + .milliseconds(5))
        }
        guard let handle else { return NetworkSocketInterest(deadline: now) }
        let fd = mosquitto_socket(handle)
        guard fd >= 0 else { return NetworkSocketInterest(deadline: now) }
        return NetworkSocketInterest(descriptor: fd, wantsWrite: mosquitto_want_write(handle), deadline: deadline)
    }

    func service(readable: Bool, writable: Bool, now: ContinuousClock.Instant) {
        self.now = now
        switch phase {
        case .idle:
            break
        case .waiting(let until):
            if until <= now { connect() }
        case .connecting, .connected:
            drive(readable: readable, writable: writable)
        }
        flush()
    }

    func stop() {
        phase = .idle
        guard let handle else { return }
        if mosquitto_socket(handle) >= 0 { _ = mosquitto_disconnect(handle) }
        mosquitto_destroy(handle)
        self.handle = nil
    }

    // MARK: - The connection

    private func connect() {
        if handle == nil, let reason = makeHandle() { return lose(reason) }
        guard let handle else { return }
        refusal = nil
        errno = 0
        let rc = mosquitto_connect_async(handle, panel.broker.host, Int32(panel.broker.port), Int32(settings.keepalive))
        let code = errno
        lastSent = now
        lastReceived = now
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { return lose(Self.reason(rc, errno: code)) }
        phase = .connecting(since: now)
    }

    /// Makes the libmosquitto client with the panel's credentials and TLS; nil, or why not.
    private func makeHandle() -> String? {
        let number = Self.clientNumber.add(1, ordering: .relaxed).newValue
        let context = Unmanaged.passUnretained(self).toOpaque()
        guard let handle = mosquitto_new("widgethost-\(getpid())-\(number)", true, context) else {
            // The panel's line is short: the library's own reason (not installed?) is for the log.
            return wh_lazy_mosquitto_error() == nil ? "cannot make an MQTT client (libmosquitto)" : "libmosquitto is not available"
        }
        _ = mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        if let username = panel.username {
            guard mosquitto_username_pw_set(handle, username, panel.password) == MOSQ_ERR_SUCCESS.rawValue else {
                mosquitto_destroy(handle)
                return "cannot set the credentials (libmosquitto)"
            }
        }
        if panel.broker.tls {
            let rc = panel.caFile.map { mosquitto_tls_set(handle, $0, nil, nil, nil, nil) }
                ?? mosquitto_tls_set(handle, nil, "/etc/ssl/certs", nil, nil, nil)
            guard rc == MOSQ_ERR_SUCCESS.rawValue else {
                mosquitto_destroy(handle)
                return panel.caFile.map { "caFile: cannot read \(MQTTText.clean($0, limit: 80))" } ?? "cannot set up TLS (libmosquitto)"
            }
        }
        mosquitto_connect_callback_set(handle, mqttConnected)
        mosquitto_disconnect_callback_set(handle, mqttDisconnected)
        mosquitto_message_callback_set(handle, mqttMessage)
        mosquitto_subscribe_callback_set(handle, mqttSubscribed)
        self.handle = handle
        return nil
    }

    /// Reads what is there (up to `packetsPerWake` packets), writes what is queued, pings
    /// when due; a failure of any of them is a lost connection.
    private func drive(readable: Bool, writable: Bool) {
        guard let handle else { return }
        var rc = MOSQ_ERR_SUCCESS.rawValue
        var code: Int32 = 0
        if readable {
            for _ in 0..<settings.packetsPerWake {
                errno = 0
                rc = mosquitto_loop_read(handle, 1)
                code = errno
                if rc != MOSQ_ERR_SUCCESS.rawValue || code == EAGAIN || code == EWOULDBLOCK { break }
            }
            lastReceived = now
            // A QoS 1 message is acknowledged as it is read.
            if panel.qos > 0 { lastSent = now }
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue, writable || mosquitto_want_write(handle) {
            errno = 0
            rc = mosquitto_loop_write(handle, 1)
            code = errno
            lastSent = now
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue, case .connected = phase,
           now >= min(lastSent, lastReceived) + .seconds(settings.keepalive) {
            rc = mosquitto_loop_misc(handle)
            code = errno
            lastSent = now
            lastReceived = now
        }
        if rc != MOSQ_ERR_SUCCESS.rawValue || mosquitto_socket(handle) < 0 {
            return lose(refusal ?? Self.reason(rc, errno: code))
        }
        if case .connecting(let since) = phase, now >= since + settings.connectTimeout {
            _ = mosquitto_disconnect(handle)
            return lose("no answer from \(panel.broker.text) within \(DurationText.wholeSeconds(settings.connectTimeout))s")
        }
    }

    /// The broker accepted (CONNACK 0): subscribe (every time: the session is clean).
    fileprivate func accepted() {
        guard let handle else { return }
        for topic in panel.topics { _ = mosquitto_subscribe(handle, nil, topic.text, Int32(panel.qos)) }
        phase = .connected
        connectedAt = now
        shared.withLock { $0.connections += 1 }
        setLink(.live)
    }

    fileprivate func subscribed() {
        shared.withLock { $0.acknowledged += 1 }
    }

    fileprivate func refused(_ code: Int32) {
        refusal = "the broker refused: " + Self.phrase(mosquitto_connack_string(code))
    }

    fileprivate func received(_ message: mosquitto_message) {
        guard let topic = message.topic else { return }
        let bytes = UnsafeRawBufferPointer(start: message.payload, count: Int(max(0, message.payloadlen)))
        let date = wallNow()
        shared.withLock { $0.table.record(topic: String(cString: topic), payload: bytes, retained: message.retain, at: date) }
        unshown = true
    }

    private func lose(_ reason: String) {
        failures = settings.backoff.failures(after: failures, connectedAt: connectedAt, now: now)
        connectedAt = nil
        phase = .waiting(until: now + settings.backoff.delay(failures: failures))
        setLink(.down(reason: reason))
    }

    private func setLink(_ link: Link) {
        let differs = shared.withLock { state -> Bool in
            defer { state.link = link }
            return state.link != link
        }
        if differs { changed() }
    }

    /// New messages reload the panel within the push budget; a collapsed reload when due.
    private func flush() {
        if budget.takeDue(at: now) {
            unshown = false
            changed()
            return
        }
        guard unshown else { return }
        if budget.eventArrived(at: now) {
            unshown = false
            changed()
        }
    }

    /// A libmosquitto result as a reason: the system's words for an errno ("connection
    /// refused"), else libmosquitto's.
    static func reason(_ rc: Int32, errno code: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue, code != 0 { return String(cString: strerror(code)).lowercased() }
        if rc == MOSQ_ERR_CONN_LOST.rawValue || rc == MOSQ_ERR_NO_CONN.rawValue { return "the broker closed the connection" }
        if rc == MOSQ_ERR_KEEPALIVE.rawValue { return "no answer to a ping" }
        // libmosquitto says only "A TLS error occurred": the usual causes, named.
        if rc == MOSQ_ERR_TLS.rawValue { return "TLS failed: a certificate not trusted for this host (caFile?), or no TLS there" }
        return phrase(mosquitto_strerror(rc))
    }

    /// libmosquitto's sentence ("Connection Refused: not authorised.") as a phrase
    /// ("connection refused: not authorised").
    static func phrase(_ text: UnsafePointer<CChar>?) -> String {
        var phrase = Substring(text.map { String(cString: $0) } ?? "unknown error").lowercased()[...]
        while let last = phrase.last, last == "." || last == " " { phrase = phrase.dropLast() }
        return MQTTText.clean(String(phrase), limit: 120)
    }
}

// MARK: - libmosquitto callbacks (on the network thread, inside loop_read; the context is the
// unretained client, which the thread holds until `stop` has destroyed the handle)

private let mqttConnected: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, context, code in
    guard let context else { return }
    let client = Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue()
    if code == 0 { client.accepted() } else { client.refused(code) }
}

private let mqttDisconnected: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32) -> Void = { _, _, _ in
    // The read or write that saw it returns an error, and `drive` handles the loss there.
}

private let mqttSubscribed: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, Int32, Int32, UnsafePointer<Int32>?) -> Void = {
    _, context, _, _, _ in
    guard let context else { return }
    Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().subscribed()
}

private let mqttMessage: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?, UnsafePointer<mosquitto_message>?) -> Void = { _, context, message in
    guard let context, let message else { return }
    Unmanaged<MQTTClient>.fromOpaque(context).takeUnretainedValue().received(message.pointee)
}
