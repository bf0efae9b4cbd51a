import CCurl
import Glibc
import Synchronization
import WidgetCore

/// Why a `CurlTransport` could not be made.
public enum CurlTransportError: Error, Sendable, Equatable {
    /// `curl_global_init` failed with this code.
    case globalInit(Int)
    case multiInit
    case thread(Int32)
}

/// `curl_global_init` runs once per process; Swift initialises a static `let` exactly once,
/// thread-safely.
enum CurlGlobal {
    static let initResult: CURLcode = wh_curl_global_init_default()
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
    enum Command: Sendable {
        case start(TransferID, TransferRequest, @Sendable (TransferEvent) -> Void)
        case cancel(TransferID)
        /// Ends wait number `wait` of a transfer now (a later wait of the same transfer is not cut).
        case retryNow(TransferID, wait: UInt64)
        /// Event streams (Push/EventStreams.swift).
        case openStream(EventStreamID, String, String, EventStreamConfiguration, @Sendable (EventStreamUpdate) -> Void)
        case closeStream(EventStreamID)
        case shutdown
    }

    /// A transfer's retry wait as `retryNow` sees it.
    struct RetryWait {
        let until: ContinuousClock.Instant
        /// The server's `Retry-After`, which `retryNow` honours.
        let isRetryAfter: Bool
        /// Counts the transfer's waits, so a late `retryNow` cannot cut a newer one.
        let number: UInt64
    }

    struct Shared {
        var commands: [Command] = []
        var running = true
        var nextID: UInt64 = 1
        /// Transfers waiting to retry; written by the network thread as waits begin and end.
        var waits: [TransferID: RetryWait] = [:]
        var threadID: Int32?
        var thread: pthread_t?
    }

    /// The multi handle as a value that may cross threads: only `curl_multi_wakeup` is called
    /// on it from other threads (documented thread-safe), and only under `shared`'s lock while
    /// the network thread is still running.
    struct Multi: @unchecked Sendable {
        let handle: UnsafeMutableRawPointer
    }

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
        guard CurlGlobal.initResult == CURLE_OK else { throw .globalInit(Int(CurlGlobal.initResult.rawValue)) }
        guard let handle = curl_multi_init() else { throw .multiInit }
        self.configuration = configuration
        mailbox = Mailbox(multi: Multi(handle: handle), clock: clock)
        let noProxy = NetworkLoop.noProxyList(configured: configuration.noProxy, environment: Self.processEnvironment())
        let loop = NetworkLoop(multi: handle, configuration: configuration, noProxy: noProxy, mailbox: mailbox,
                               clock: clock, randomSeed: randomSeed)
        let box = Unmanaged.passRetained(LoopStart(loop: loop, mailbox: mailbox)).toOpaque()
        var thread = pthread_t()
        let rc = pthread_create(&thread, nil, { raw in
            let start = Unmanaged<LoopStart>.fromOpaque(raw!).takeRetainedValue()
            start.run()
            return nil
        }, box)
        guard rc == 0 else {
            Unmanaged<LoopStart>.fromOpaque(box).release()
            curl_multi_cleanup(handle)
            throw .thread(rc)
        }
        mailbox.shared.withLock { $0.thread = thread }
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

/// Commands from callers to the network thread. Owned by the transport and the thread alike,
/// so the thread never depends on the transport object (whose last reference may be dropped
/// on any thread).
final class Mailbox: Sendable {
    let multi: CurlTransport.Multi
    let clock: any TransportClock
    let shared = Mutex(CurlTransport.Shared())

    init(multi: CurlTransport.Multi, clock: any TransportClock) {
        self.multi = multi
        self.clock = clock
    }

    /// Queues a command and wakes the thread; false once the thread has stopped.
    func send(_ command: CurlTransport.Command) -> Bool {
        shared.withLock { s in
            guard s.running else { return false }
            s.commands.append(command)
            curl_multi_wakeup(multi.handle)
            return true
        }
    }

    /// Cuts a backoff short (wakes the thread), or reports why not; see `HTTPTransport.retryNow`.
    func retryNow(_ id: TransferID) -> RetryNowResult {
        shared.withLock { s in
            guard s.running, let wait = s.waits[id] else { return .notWaiting }
            if wait.isRetryAfter {
                return .honouringRetryAfter(remaining: max(.zero, clock.now.duration(to: wait.until)))
            }
            // Forgotten here, so a second call answers `.notWaiting` like any attempt under way.
            s.waits[id] = nil
            s.commands.append(.retryNow(id, wait: wait.number))
            curl_multi_wakeup(multi.handle)
            return .retrying
        }
    }

    /// A transfer began waiting to retry (before its `.retrying` event is reported).
    fileprivate func waitStarted(_ id: TransferID, _ wait: CurlTransport.RetryWait) {
        shared.withLock { $0.waits[id] = wait }
    }

    /// A transfer stopped waiting (its attempt starts, or it was cancelled).
    fileprivate func waitEnded(_ id: TransferID) {
        shared.withLock { _ = $0.waits.removeValue(forKey: id) }
    }

    fileprivate func threadStarted() {
        let tid = wh_gettid()
        shared.withLock { $0.threadID = tid }
    }

    fileprivate func takeCommands() -> [CurlTransport.Command] {
        shared.withLock { s in
            defer { s.commands = [] }
            return s.commands
        }
    }

    /// Marks the transport stopped; commands sent after this fail at once.
    fileprivate func markStopped() -> [CurlTransport.Command] {
        shared.withLock { s in
            s.running = false
            s.waits = [:]
            defer { s.commands = [] }
            return s.commands
        }
    }
}

/// What the network thread starts with. `@unchecked Sendable`: handed over once through
/// `pthread_create`; the loop is used only by that thread from then on.
private final class LoopStart: @unchecked Sendable {
    let loop: NetworkLoop
    let mailbox: Mailbox

    init(loop: NetworkLoop, mailbox: Mailbox) {
        self.loop = loop
        self.mailbox = mailbox
    }

    func run() {
        // Names the thread (/proc/PID/task/TID/comm) for `top -H` and the benchmark.
        let comm = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        if comm >= 0 { _ = write(comm, "wh-transport", 12); close(comm) }
        mailbox.threadStarted()
        loop.run()
    }
}

/// The network thread's state and loop. Only the network thread touches it.
final class NetworkLoop {
    private let multi: UnsafeMutableRawPointer
    private let configuration: CurlTransportConfiguration
    /// `CURLOPT_NOPROXY` for every attempt: the configured or environment's list plus loopback.
    private let noProxy: String
    private let mailbox: Mailbox
    private var transfers: [TransferID: Transfer] = [:]
    private var activePerHost: [String: Int] = [:]
    private var queuedPerHost: [String: [Transfer]] = [:]
    private var waiting: [TransferID: Transfer] = [:]
    /// The last 200's validators by `TransferRequest.validatorKey` (URL and session directory).
    private var rememberedValidators: [String: Validators] = [:]
    private let streams: EventStreams
    private let clock: any TransportClock
    /// The retry jitter's source (only this thread draws from it).
    private var random: SplitMix64

    init(multi: UnsafeMutableRawPointer, configuration: CurlTransportConfiguration, noProxy: String, mailbox: Mailbox,
         clock: any TransportClock = SystemTransportClock(), randomSeed: UInt64 = CurlTransport.defaultRandomSeed) {
        self.multi = multi
        self.configuration = configuration
        self.noProxy = noProxy
        self.mailbox = mailbox
        streams = EventStreams(multi: multi, configuration: configuration, noProxy: noProxy)
        self.clock = clock
        random = SplitMix64(seed: randomSeed)
    }

    fileprivate func run() {
        var stopping = false
        while !stopping {
            for command in mailbox.takeCommands() {
                if handle(command) { stopping = true }
            }
            if stopping { break }
            startDueRetries()
            streams.startDue()
            failExpiredQueued()
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            collectFinished()
            curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
        }
        for command in mailbox.markStopped() {
            if case .start(_, _, let events) = command {
                events(.finished(.failed(TransferFailure(kind: .other, reason: "the transport was shut down", attempts: 0))))
            }
        }
        for id in Array(transfers.keys) { cancel(id) }
        streams.closeAll()
        curl_multi_cleanup(multi)
    }

    /// Handles one command; returns true for shutdown.
    private func handle(_ command: CurlTransport.Command) -> Bool {
        switch command {
        case .start(let id, let request, let events):
            guard let hostKey = Self.hostKey(request.url) else {
                events(.finished(.failed(TransferFailure(
                    kind: .badURL, reason: "not an http or https URL: \(URLRedaction.redacted(request.url))", attempts: 0))))
                return false
            }
            let transfer = Transfer(id: id, request: request, hostKey: hostKey,
                                    deadline: clock.now + configuration.transferDeadline,
                                    maxBodyBytes: configuration.maxBodyBytes, events: events)
            transfers[id] = transfer
            enqueue(transfer)
        case .cancel(let id):
            cancel(id)
        case .retryNow(let id, let number):
            // `startDueRetries`, next in the loop, starts the attempt.
            if let transfer = waiting[id], transfer.waitNumber == number { transfer.notBefore = clock.now }
        case .openStream(let id, let url, let lastEventID, let configuration, let updates):
            streams.open(id, url: url, lastEventID: lastEventID, configuration: configuration, updates: updates)
        case .closeStream(let id):
            streams.close(id)
        case .shutdown:
            return true
        }
        return false
    }

    private func cancel(_ id: TransferID) {
        guard let transfer = transfers[id] else { return }
        if transfer.easy != nil {
            releaseEasy(transfer)
            releaseSlot(transfer.hostKey)
        }
        if waiting.removeValue(forKey: id) != nil { mailbox.waitEnded(id) }
        queuedPerHost[transfer.hostKey]?.removeAll { $0 === transfer }
        finish(transfer, .cancelled)
    }

    // MARK: - Queueing per host

    private func enqueue(_ transfer: Transfer) {
        if activePerHost[transfer.hostKey, default: 0] < configuration.maxConcurrentPerHost {
            activePerHost[transfer.hostKey, default: 0] += 1
            startAttempt(transfer)
        } else {
            queuedPerHost[transfer.hostKey, default: []].append(transfer)
        }
    }

    private func releaseSlot(_ hostKey: String) {
        activePerHost[hostKey, default: 1] -= 1
        if var queue = queuedPerHost[hostKey], !queue.isEmpty {
            let next = queue.removeFirst()
            queuedPerHost[hostKey] = queue
            activePerHost[hostKey, default: 0] += 1
            startAttempt(next)
        }
    }

    private func startDueRetries() {
        let now = clock.now
        let due = waiting.values.filter { ($0.notBefore ?? now) <= now }.sorted { $0.id.rawValue < $1.id.rawValue }
        for transfer in due {
            waiting[transfer.id] = nil
            mailbox.waitEnded(transfer.id)
            transfer.notBefore = nil
            enqueue(transfer)
        }
    }

    private func failExpiredQueued() {
        let now = clock.now
        for (host, queue) in queuedPerHost {
            let expired = queue.filter { $0.deadline <= now }
            guard !expired.isEmpty else { continue }
            queuedPerHost[host] = queue.filter { $0.deadline > now }
            for transfer in expired {
                finish(transfer, .failed(TransferFailure(
                    kind: .timedOut, reason: "timed out after \(Self.seconds(configuration.transferDeadline)) waiting for a connection",
                    attempts: transfer.attempts)))
            }
        }
    }

    /// How long `curl_multi_poll` may sleep: forever (Int32.max ms) when idle.
    private func pollTimeout() -> Int32 {
        var timeout: Int = -1
        curl_multi_timeout(multi, &timeout)
        var wake: ContinuousClock.Instant?
        for transfer in waiting.values { if let t = transfer.notBefore { wake = min(wake ?? t, t) } }
        for queue in queuedPerHost.values { for transfer in queue { wake = min(wake ?? transfer.deadline, transfer.deadline) } }
        if let t = streams.nextWake { wake = min(wake ?? t, t) }
        if let wake {
            let ms = Self.milliseconds(clock.now.duration(to: wake))
            timeout = timeout < 0 ? ms : min(timeout, ms)
        }
        return timeout < 0 ? Int32.max : Int32(clamping: timeout)
    }

    // MARK: - Attempts

    private func startAttempt(_ transfer: Transfer) {
        let remaining = clock.now.duration(to: transfer.deadline)
        guard remaining > .milliseconds(1) else {
            releaseSlot(transfer.hostKey)
            finish(transfer, .failed(TransferFailure(
                kind: .timedOut, reason: "timed out after \(Self.seconds(configuration.transferDeadline)) (whole transfer)",
                attempts: transfer.attempts, retryAfter: transfer.lastRetryAfter)))
            return
        }
        guard let easy = curl_easy_init() else {
            releaseSlot(transfer.hostKey)
            finish(transfer, .failed(TransferFailure(kind: .other, reason: "curl_easy_init failed", attempts: transfer.attempts)))
            return
        }
        transfer.attempts += 1
        transfer.easy = easy
        transfer.resetResponse()
        transfer.bodyTooLarge = false
        transfer.fileError = nil
        transfer.discardTempFile()
        transfer.errorBuffer[0] = 0
        transfer.attemptTimeout = min(configuration.requestTimeout, remaining)

        let request = transfer.request
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        wh_curl_easy_setopt_string(easy, CURLOPT_URL, request.url)
        wh_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        wh_curl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR,
                                   Self.redirectProtocols(for: transfer.hostKey, allowingDowngrade: configuration.allowsHTTPSDowngrade))
        wh_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, request.postBody == nil ? 1 : 0)
        wh_curl_easy_setopt_long(easy, CURLOPT_MAXREDIRS, configuration.maxRedirects)
        wh_curl_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        wh_curl_easy_setopt_long(easy, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        wh_curl_easy_setopt_long(easy, CURLOPT_TIMEOUT_MS, Self.milliseconds(transfer.attemptTimeout))
        wh_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_LIMIT, configuration.lowSpeedBytesPerSecond)
        wh_curl_easy_setopt_long(easy, CURLOPT_LOW_SPEED_TIME, max(1, Self.milliseconds(configuration.lowSpeedTime) / 1000))
        wh_curl_easy_setopt_off(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(configuration.maxBodyBytes))
        wh_curl_easy_setopt_string(easy, CURLOPT_USERAGENT, configuration.userAgent)
        wh_curl_easy_setopt_string(easy, CURLOPT_ACCEPT_ENCODING, "")
        if let proxy = configuration.proxy { wh_curl_easy_setopt_string(easy, CURLOPT_PROXY, proxy) }
        wh_curl_easy_setopt_string(easy, CURLOPT_NOPROXY, noProxy)
        wh_curl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, transfer.errorBuffer)
        wh_curl_easy_setopt_pointer(easy, CURLOPT_PRIVATE, context)
        wh_curl_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, curlWriteCallback)
        wh_curl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        wh_curl_easy_setopt_header_callback(easy, curlHeaderCallback)
        wh_curl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)

        var list: UnsafeMutablePointer<curl_slist>?
        var validators = request.validators ?? rememberedValidators[request.validatorKey] ?? Validators()
        if let body = request.postBody {
            validators = Validators()
            wh_curl_easy_setopt_long(easy, CURLOPT_POSTFIELDSIZE, body.count)
            // Copied by curl at once, so the bytes need not outlive this call.
            if body.isEmpty {
                wh_curl_easy_setopt_string(easy, CURLOPT_COPYPOSTFIELDS, "")
            } else {
                _ = body.withUnsafeBufferPointer { bytes in
                    wh_curl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress!))
                }
            }
        }
        transfer.sentValidators = validators
        if let etag = validators.etag { list = curl_slist_append(list, "If-None-Match: \(etag)") }
        if let date = validators.lastModified { list = curl_slist_append(list, "If-Modified-Since: \(date)") }
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            list = curl_slist_append(list, "\(name): \(value)")
        }
        transfer.headerList = list
        if let list { wh_curl_easy_setopt_slist(easy, CURLOPT_HTTPHEADER, list) }
        curl_multi_add_handle(multi, easy)
    }

    private func releaseEasy(_ transfer: Transfer) {
        guard let easy = transfer.easy else { return }
        curl_multi_remove_handle(multi, easy)
        curl_easy_cleanup(easy)
        transfer.easy = nil
        if let list = transfer.headerList { curl_slist_free_all(list) }
        transfer.headerList = nil
    }

    private func collectFinished() {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            if streams.ended(easy, code: code) { continue }
            var raw: UnsafeMutableRawPointer?
            wh_curl_easy_getinfo_pointer(easy, CURLINFO_PRIVATE, &raw)
            guard let raw else { continue }
            let transfer = Unmanaged<Transfer>.fromOpaque(raw).takeUnretainedValue()
            attemptEnded(transfer, code: code)
        }
    }

    private enum Outcome {
        case done(TransferResult)
        case retry(TransferFailure, retryAfter: Duration?)
    }

    private func attemptEnded(_ transfer: Transfer, code: CURLcode) {
        let easy = transfer.easy!
        var osErrno = 0
        wh_curl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno)
        var connectTime: curl_off_t = 0
        wh_curl_easy_getinfo_off(easy, CURLINFO_CONNECT_TIME_T, &connectTime)
        // After a refused redirect, the effective URL is the one curl would not follow.
        var effective: UnsafeMutablePointer<CChar>?
        wh_curl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
        transfer.effectiveURL = effective.map { String(cString: $0) }
        releaseEasy(transfer)
        releaseSlot(transfer.hostKey)

        var outcome = classify(transfer, code: code, osErrno: osErrno, connected: connectTime > 0)
        if case .retry(let failure, _) = outcome, transfer.request.postBody != nil, connectTime > 0 {
            // The server may have acted on the POST already: not done twice.
            outcome = .done(.failed(failure))
        }
        switch outcome {
        case .done(let result):
            if case .downloaded(let file) = result, file.status == 200, !file.validators.isEmpty {
                rememberedValidators[transfer.request.validatorKey] = file.validators
            }
            finish(transfer, result)
        case .retry(var failure, let retryAfter):
            transfer.discardTempFile()
            transfer.lastRetryAfter = retryAfter
            failure.retryAfter = retryAfter
            let policy = configuration.retry
            let delay = retryAfter ?? policy.delay(afterAttempt: transfer.attempts,
                                                   jitter: policy.jitter?() ?? random.nextUnit())
            let tooLongAsked = retryAfter.map { $0 > policy.maxRetryAfter } ?? false
            let pastDeadline = clock.now + delay >= transfer.deadline
            if transfer.attempts >= policy.maxAttempts || tooLongAsked || pastDeadline {
                if transfer.attempts > 1 { failure.reason += " after \(transfer.attempts) tries" }
                if tooLongAsked, let retryAfter { failure.reason += " (asked to retry in \(Self.seconds(retryAfter)))" }
                else if pastDeadline && transfer.attempts < policy.maxAttempts {
                    failure.reason += " (no time left to retry within \(Self.seconds(configuration.transferDeadline)))"
                }
                finish(transfer, .failed(failure))
            } else {
                let until = clock.now + delay
                transfer.notBefore = until
                transfer.waitNumber += 1
                waiting[transfer.id] = transfer
                mailbox.waitStarted(transfer.id, CurlTransport.RetryWait(
                    until: until, isRetryAfter: retryAfter != nil, number: transfer.waitNumber))
                transfer.events(.retrying(attempt: transfer.attempts, delay: delay,
                                          reason: URLRedaction.redactingURLs(in: failure.reason)))
            }
        }
    }

    private func classify(_ transfer: Transfer, code: CURLcode, osErrno: Int, connected: Bool) -> Outcome {
        let attempts = transfer.attempts
        func fail(_ kind: TransferFailure.Kind, _ reason: String) -> Outcome {
            transfer.discardTempFile()
            return .done(.failed(TransferFailure(kind: kind, reason: reason, attempts: attempts)))
        }
        func retry(_ kind: TransferFailure.Kind, _ reason: String, after: Duration? = nil) -> Outcome {
            .retry(TransferFailure(kind: kind, reason: reason, attempts: attempts), retryAfter: after)
        }
        if transfer.bodyTooLarge || code == CURLE_FILESIZE_EXCEEDED {
            return fail(.bodyTooLarge, "body larger than \(Self.bytes(configuration.maxBodyBytes))")
        }
        if let fileError = transfer.fileError { return fail(.fileSystem, fileError) }

        switch code {
        case CURLE_OK:
            let status = transfer.status
            let reason = transfer.reasonPhrase.isEmpty ? Self.reasonPhrase(status) : transfer.reasonPhrase
            switch status {
            case 200..<300:
                if let error = transfer.commitTempFile() { return fail(.fileSystem, error) }
                return .done(.downloaded(DownloadedFile(
                    path: transfer.request.destinationPath, status: status, byteCount: transfer.bytesWritten,
                    validators: transfer.responseValidators, attempts: attempts)))
            case 304:
                transfer.discardTempFile()
                var validators = transfer.sentValidators
                if let etag = transfer.responseValidators.etag { validators.etag = etag }
                if let date = transfer.responseValidators.lastModified { validators.lastModified = date }
                return .done(.notModified(validators))
            case 429, 500..<600:
                let now = clock.wallNow
                let after = transfer.retryAfterValue.flatMap { RetryAfter.parse($0, now: now) }
                return retry(.httpStatus(status), "server answered \(status) \(reason)", after: after)
            default:
                return fail(.httpStatus(status), "server answered \(status) \(reason)")
            }
        case CURLE_COULDNT_CONNECT:
            return retry(.connection, osErrno == Int(ECONNREFUSED) ? "connection refused"
                         : "could not connect: \(transfer.errorText)")
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY:
            return retry(.connection, "could not resolve host: \(transfer.errorText)")
        case CURLE_OPERATION_TIMEDOUT:
            if !connected {
                return retry(.timedOut, "timed out after \(Self.seconds(min(configuration.connectTimeout, transfer.attemptTimeout))) connecting")
            }
            if transfer.errorText.contains("too slow") {
                return retry(.timedOut, "stalled: under \(configuration.lowSpeedBytesPerSecond) bytes/s for \(Self.seconds(configuration.lowSpeedTime))")
            }
            return retry(.timedOut, "timed out after \(Self.seconds(transfer.attemptTimeout))")
        case CURLE_PARTIAL_FILE:
            let announced = transfer.contentLength.map { " of \($0)" } ?? ""
            return retry(.truncated, "connection closed after \(transfer.bytesWritten)\(announced) bytes")
        case CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return retry(.connection, osErrno == Int(ECONNRESET) ? "connection reset by the server"
                         : "connection failed: \(transfer.errorText)")
        case CURLE_GOT_NOTHING:
            return retry(.connection, "server closed the connection without answering")
        case CURLE_SSL_CONNECT_ERROR:
            return retry(.connection, "TLS handshake failed: \(transfer.errorText)")
        case CURLE_TOO_MANY_REDIRECTS:
            return fail(.tooManyRedirects, "stopped after \(configuration.maxRedirects) redirects")
        case CURLE_UNSUPPORTED_PROTOCOL:
            if (300..<400).contains(transfer.status), let effective = transfer.effectiveURL, effective != transfer.request.url {
                // The server chose this URL: shown without credentials, cleaned and cut (in that
                // order, so a cut cannot hide the @ that ends a password).
                let target = Transfer.printable(Substring(URLRedaction.redacted(effective)), limit: 200)
                let from = transfer.hostKey.hasPrefix("https:") ? "https" : "http"
                let to = target.prefix { $0 != ":" }.lowercased()
                return fail(.badURL, from == "https" && to == "http"
                            ? "refused a redirect from https to http: \(target)"
                            : "refused a redirect to another protocol: \(target)")
            }
            return fail(.badURL, "unsupported protocol (only http and https): \(transfer.request.url)")
        case CURLE_URL_MALFORMAT:
            return fail(.badURL, "malformed URL: \(transfer.request.url)")
        default:
            let text = transfer.errorText.isEmpty ? String(cString: curl_easy_strerror(code)) : transfer.errorText
            return fail(.other, text)
        }
    }

    private func finish(_ transfer: Transfer, _ result: TransferResult) {
        if case .downloaded = result {} else { transfer.discardTempFile() }
        transfers[transfer.id] = nil
        var result = result
        // Reasons may quote URLs (ours, a redirect's, curl's); none may show credentials.
        if case .failed(var failure) = result {
            failure.reason = URLRedaction.redactingURLs(in: failure.reason)
            result = .failed(failure)
        }
        transfer.events(.finished(result))
    }

    // MARK: - Helpers

    /// `scheme://host:port` for http(s) URLs (curl's URL parser), else nil.
    static func hostKey(_ url: String) -> String? {
        guard let handle = curl_url() else { return nil }
        defer { curl_url_cleanup(handle) }
        guard curl_url_set(handle, CURLUPART_URL, url, 0) == CURLUE_OK else { return nil }
        func part(_ which: CURLUPart, _ flags: UInt32 = 0) -> String? {
            var value: UnsafeMutablePointer<CChar>?
            guard curl_url_get(handle, which, &value, flags) == CURLUE_OK, let value else { return nil }
            defer { curl_free(value) }
            return String(cString: value)
        }
        guard let scheme = part(CURLUPART_SCHEME)?.lowercased(), scheme == "http" || scheme == "https",
              let host = part(CURLUPART_HOST)?.lowercased(),
              let port = part(CURLUPART_PORT, UInt32(CURLU_DEFAULT_PORT))
        else { return nil }
        return "\(scheme)://\(host):\(port)"
    }

    /// Whole milliseconds, rounded up; 0 for negative durations, `Int.max` for ones too long
    /// to count in milliseconds (a server's `Retry-After` may ask for anything).
    static func milliseconds(_ d: Duration) -> Int {
        if d <= .zero { return 0 }
        let (s, atto) = d.components
        let (ms, overflow) = s.multipliedReportingOverflow(by: 1000)
        guard !overflow else { return Int.max }
        // atto is below 10^18, so the rounded-up part is at most 1000.
        let (total, overflowAdding) = ms.addingReportingOverflow((atto + 999_999_999_999_999) / 1_000_000_000_000_000)
        return overflowAdding ? Int.max : Int(clamping: total)
    }

    /// The protocols curl may follow a redirect to: a transfer that starts on https stays on
    /// https unless downgrades are allowed; one that starts on http may move to https.
    static func redirectProtocols(for hostKey: String, allowingDowngrade: Bool) -> String {
        hostKey.hasPrefix("https:") && !allowingDowngrade ? "https" : "http,https"
    }

    /// Hosts that never go through a proxy: loopback, by name and address. curl compares
    /// these with the URL's host as written (no lookup); `127.0.0.0/8` and `::1` are CIDR
    /// entries, `localhost` also covers `*.localhost`.
    static let loopbackHosts = ["localhost", "127.0.0.0/8", "::1", "::ffff:127.0.0.0/104"]

    /// The `CURLOPT_NOPROXY` list: the configured one, else the environment's `no_proxy` /
    /// `NO_PROXY` (as curl reads them), with the loopback hosts added. `*` stays `*`.
    static func noProxyList(configured: String?, environment: [String: String]) -> String {
        let given = configured ?? environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        let entries = given.split(whereSeparator: { $0 == "," || $0 == " " || $0 == "\t" }).map(String.init)
        if entries.contains("*") { return "*" }
        return (entries + loopbackHosts.filter { !entries.contains($0) }).joined(separator: ",")
    }

    /// "10 s", "1.5 s", "300 ms".
    static func seconds(_ d: Duration) -> String {
        let ms = milliseconds(d)
        if ms < 1000 { return "\(ms) ms" }
        if ms % 1000 == 0 { return "\(ms / 1000) s" }
        return "\(Double(ms) / 1000) s"
    }

    /// "1 MB", "64 KB", "1500 bytes" (binary units).
    static func bytes(_ n: Int) -> String {
        if n >= 1 << 20 && n % (1 << 20) == 0 { return "\(n >> 20) MB" }
        if n >= 1 << 10 && n % (1 << 10) == 0 { return "\(n >> 10) KB" }
        return "\(n) bytes"
    }

    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}
