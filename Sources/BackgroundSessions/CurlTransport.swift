import CLinux
import CCurl
import Glibc
import Synchronization
import WidgetCore

/// Why a `CurlTransport` could not be made.
public enum CurlTransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libcurl could not be opened (it is opened at the first transport, not at start): why.
    case unavailable(String)
    /// `curl_global_init` failed with this code.
    case globalInit(Int)
    case multiInit
    case thread(Int32)

    public var description: String {
        switch self {
        case .unavailable(let why): "libcurl is not available (\(why)); install libcurl4"
        case .globalInit(let code): "libcurl could not start (curl_global_init: \(code))"
        case .multiInit: "libcurl could not make a multi handle"
        case .thread(let code): "the network thread could not start (error \(code))"
        }
    }
}

/// `curl_global_init` runs once per process; Swift initialises a static `let` exactly once,
/// thread-safely.
enum CurlGlobal {
    static let initResult: CURLcode = wh_curl_global_init_default()
    /// A function the transport calls that this libcurl lacks (once per process), or nil.
    static let missing: String? = wh_lazy_curl_check().map { String(cString: $0) }
}

/// The production `HTTPTransport`: libcurl's multi interface driven by one network thread.
///
/// The thread sleeps in `curl_multi_poll` with no timeout while nothing is in flight or
/// waiting, and is woken by `curl_multi_wakeup` when `start`/`cancel` hand it work; while
/// transfers run or wait to retry it sleeps until curl's next timeout or the next retry is
/// due. No periodic timer. Events are delivered on the network thread.
///
/// `retryNow` answers from a mirror of the retry waits kept under the mailbox's lock (so it
/// returns at once and never asks the network thread), and wakes the thread only to cut a
/// backoff short.
///
/// Conditional requests: the ETag / Last-Modified of the last 200 for a URL are remembered
/// (in memory, for the life of the transport) and sent back; a 304 ends as `.notModified`.
///
/// Time and chance are passed in: `clock` gives the retry waits and deadlines their instants
/// and `Retry-After` dates their "now"; the retry jitter comes from a generator seeded with
/// `randomSeed` (unless the policy brings its own `jitter`), so a run can be reproduced.
public final class CurlTransport: HTTPTransport {
    public let configuration: CurlTransportConfiguration
    let mailbox: Mailbox

    /// The seed used when none is given: fixed, so tests and tools are reproducible. The
    /// dashboard passes one drawn once at start (`HostIO`), so hosts do not retry in lockstep.
    public static let defaultRandomSeed: UInt64 = 0x5EED_C0A1

    /// Creates the transport and starts its network thread.
    ///
    /// - Parameters:
    ///   - clock: the wall clock for `Retry-After` dates and the monotonic one for waits.
    ///   - randomSeed: seeds the retry jitter (`RetryPolicy.jitter`, when set, replaces it).
    public init(configuration: CurlTransportConfiguration = CurlTransportConfiguration(),
                clock: any TransportClock = SystemTransportClock(),
                randomSeed: UInt64 = CurlTransport.defaultRandomSeed) throws(CurlTransportError) {
        guard CurlGlobal.initResult == CURLE_OK else {
            if let why = wh_lazy_curl_error() { throw .unavailable(String(cString: why)) }
            throw .globalInit(Int(CurlGlobal.initResult.rawValue))
        }
        if let why = CurlGlobal.missing { throw .unavailable(why) }
        guard let handle = curl_multi_init() else { throw .multiInit }
        self.configuration = configuration
        mailbox = Mailbox(multi: Multi(handle: handle), clock: clock)
        let noProxy = NetworkLoop.noProxyList(configured: configuration.noProxy, environment: Self.processEnvironment())
        let loop = NetworkLoop(multi: handle, configuration: configuration, noProxy: noProxy, mailbox: mailbox,
                               clock: clock, randomSeed: randomSeed)
        let start = LoopStart(loop: loop, mailbox: mailbox)
        // Joined at shutdown. libcurl's callbacks and the resolver run here: 1 MiB.
        switch HostThread.start(name: "wh-transport", stackSize: 1024 * 1024, detached: false, { start.run() }) {
        case .success(let thread):
            mailbox.shared.withLock { $0.thread = thread }
        case .failure(let error):
            curl_multi_cleanup(handle)
            throw .thread(error.code)
        }
    }

    deinit { shutdown() }

    /// The network thread's kernel thread id (for measuring its wake-ups), once it has started.
    public var networkThreadID: Int32? { mailbox.shared.withLock { $0.threadID } }

    @discardableResult
    public func start(_ request: TransferRequest, events: @escaping @Sendable (TransferEvent) -> Void) -> TransferID {
        let id = mailbox.shared.withLock { s -> TransferID in
            let id = TransferID(rawValue: s.nextID)
            s.nextID += 1
            return id
        }
        if !send(.start(id, request, events)) {
            events(.finished(.failed(TransferFailure(kind: .other, reason: "the transport was shut down", attempts: 0))))
        }
        return id
    }

    public func cancel(_ id: TransferID) {
        _ = send(.cancel(id))
    }

    @discardableResult
    public func retryNow(_ id: TransferID) -> RetryNowResult {
        mailbox.retryNow(id)
    }

    /// Cancels every transfer (each ends with `.cancelled`), stops the network thread and waits
    /// for it. Idempotent; later `start` calls fail at once.
    public func shutdown() {
        _ = send(.shutdown)
        let thread = mailbox.shared.withLock { s -> pthread_t? in
            defer { s.thread = nil }
            return s.thread
        }
        guard let thread else { return }
        // Called on the network thread itself (last reference dropped in an event callback):
        // it finishes on its own once the callback returns.
        if pthread_equal(pthread_self(), thread) != 0 { pthread_detach(thread) } else { pthread_join(thread, nil) }
    }

    private func send(_ command: Command) -> Bool {
        mailbox.send(command)
    }

    /// The proxy-related variables of this process's environment, as curl would read them.
    static func processEnvironment() -> [String: String] {
        var environment: [String: String] = [:]
        for name in ["no_proxy", "NO_PROXY"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return environment
    }
}

/// What the network thread starts with. `@unchecked Sendable`: handed over once through
/// `pthread_create`; the loop is used only by that thread from then on.
final class LoopStart: @unchecked Sendable {
    let loop: NetworkLoop
    let mailbox: Mailbox

    init(loop: NetworkLoop, mailbox: Mailbox) {
        self.loop = loop
        self.mailbox = mailbox
    }

    func run() {
        mailbox.threadStarted()
        loop.run()
    }
}

