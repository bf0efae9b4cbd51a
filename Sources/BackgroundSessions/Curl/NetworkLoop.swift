import CCurl
import FoundationEssentials
import Glibc
import WidgetCore

/// The network thread's state and loop. Only the network thread touches it.
final class NetworkLoop {
    private let multi: UnsafeMutableRawPointer
    private let configuration: CurlTransportConfiguration
    /// `CURLOPT_NOPROXY` for every attempt: the configured or environment's list plus loopback.
    private let noProxy: String
    private let mailbox: Mailbox
    private var transfers: [TransferID: Transfer] = [:]
    private var hosts: HostQueue<Transfer>
    private var waiting: [TransferID: Transfer] = [:]
    /// The last 200's validators by `TransferRequest.validatorKey` (URL and session directory).
    private var rememberedValidators: [String: Validators] = [:]
    private let streams: EventStreams
    /// Other protocols' connections (MQTT), polled beside curl's sockets.
    private let sockets = NetworkSockets()
    private let clock: any TransportClock
    /// The retry jitter's source (only this thread draws from it).
    private var random: SplitMix64

    init(multi: UnsafeMutableRawPointer, configuration: CurlTransportConfiguration, noProxy: String, mailbox: Mailbox,
         clock: any TransportClock = SystemTransportClock(), randomSeed: UInt64 = CurlTransport.defaultRandomSeed) {
        self.multi = multi
        self.configuration = configuration
        self.noProxy = noProxy
        self.mailbox = mailbox
        hosts = HostQueue(limit: configuration.maxConcurrentPerHost)
        streams = EventStreams(multi: multi, configuration: configuration, noProxy: noProxy)
        self.clock = clock
        random = SplitMix64(seed: randomSeed)
    }

    func run() {
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
            if sockets.isEmpty {
                curl_multi_poll(multi, nil, 0, pollTimeout(), nil)
            } else {
                // The watched clients' descriptors wait in the same poll; their deadlines
                // (keepalive, reconnect) bound it, so a quiet connection costs no wake-up.
                let deadline = sockets.prepare(now: clock.now)
                var timeout = pollTimeout()
                if let deadline { timeout = min(timeout, Int32(clamping: Self.milliseconds(clock.now.duration(to: deadline)))) }
                sockets.descriptors.withUnsafeMutableBufferPointer { fds in
                    _ = curl_multi_poll(multi, fds.baseAddress, UInt32(fds.count), max(0, timeout), nil)
                }
                sockets.dispatch(now: clock.now)
            }
        }
        for command in mailbox.markStopped() {
            if case .start(_, _, let events) = command {
                events(.finished(.failed(TransferFailure(kind: .other, reason: "the transport was shut down", attempts: 0))))
            }
        }
        for id in Array(transfers.keys) { cancel(id) }
        streams.closeAll()
        sockets.removeAll()
        mailbox.endWakeups()
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
        case .watchSocket(let id, let client):
            sockets.add(id, client, now: clock.now)
        case .unwatchSocket(let id):
            sockets.remove(id)
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
        hosts.remove(transfer, host: transfer.hostKey)
        finish(transfer, .cancelled)
    }

    // MARK: - Queueing per host

    private func enqueue(_ transfer: Transfer) {
        if hosts.admit(transfer, host: transfer.hostKey) { startAttempt(transfer) }
    }

    private func releaseSlot(_ hostKey: String) {
        if let next = hosts.release(host: hostKey) { startAttempt(next) }
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
        for transfer in hosts.removeExpired({ $0.deadline <= now }) {
            finish(transfer, .failed(TransferFailure(
                kind: .timedOut, reason: "timed out after \(Self.seconds(configuration.transferDeadline)) waiting for a connection",
                attempts: transfer.attempts)))
        }
    }

    /// How long `curl_multi_poll` may sleep: forever (Int32.max ms) when idle.
    private func pollTimeout() -> Int32 {
        var timeout: Int = -1
        curl_multi_timeout(multi, &timeout)
        var wake: ContinuousClock.Instant?
        for transfer in waiting.values { if let t = transfer.notBefore { wake = min(wake ?? t, t) } }
        for transfer in hosts.allQueued { wake = min(wake ?? transfer.deadline, transfer.deadline) }
        if let t = streams.nextWake { wake = min(wake ?? t, t) }
        if let wake {
            let ms = Self.milliseconds(clock.now.duration(to: wake))
            timeout = timeout < 0 ? ms : min(timeout, ms)
        }
        return timeout < 0 ? Int32.max : Int32(clamping: timeout)
    }

    // MARK: - Attempts

    /// Starts an attempt; a redirect the transport follows itself keeps its host slot and is
    /// not counted as another try.
    private func startAttempt(_ transfer: Transfer, redirect: Bool = false) {
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
        if !redirect { transfer.attempts += 1 }
        transfer.easy = easy
        transfer.resetResponse()
        transfer.bodyTooLarge = false
        transfer.fileError = nil
        transfer.discardTempFile()
        transfer.errorBuffer[0] = 0
        transfer.attemptTimeout = min(configuration.requestTimeout, remaining)

        let request = transfer.request
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        wh_curl_easy_setopt_string(easy, CURLOPT_URL, transfer.url)
        wh_curl_easy_setopt_string(easy, CURLOPT_PROTOCOLS_STR, "http,https")
        wh_curl_easy_setopt_string(easy, CURLOPT_REDIR_PROTOCOLS_STR,
                                   Self.redirectProtocols(for: transfer.hostKey, allowingDowngrade: configuration.allowsHTTPSDowngrade))
        wh_curl_easy_setopt_long(easy, CURLOPT_FOLLOWLOCATION, request.postBody == nil && !transfer.followsRedirectsItself ? 1 : 0)
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
        // Custom headers go to the request's own origin (scheme, host and port) only.
        if transfer.redirects == 0 || Self.hostKey(transfer.url) == transfer.hostKey {
            for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
                list = curl_slist_append(list, "\(name): \(value)")
            }
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

    private func attemptEnded(_ transfer: Transfer, code: CURLcode) {
        let easy = transfer.easy!
        var code = code
        var osErrno = 0
        wh_curl_easy_getinfo_long(easy, CURLINFO_OS_ERRNO, &osErrno)
        var connectTime: curl_off_t = 0
        wh_curl_easy_getinfo_off(easy, CURLINFO_CONNECT_TIME_T, &connectTime)
        // After a refused redirect, the effective URL is the one curl would not follow.
        var effective: UnsafeMutablePointer<CChar>?
        wh_curl_easy_getinfo_string(easy, CURLINFO_EFFECTIVE_URL, &effective)
        transfer.effectiveURL = effective.map { String(cString: $0) }
        if code == CURLE_OK, transfer.followsRedirectsItself, let target = redirectTarget(easy, status: transfer.status) {
            // Refused as curl refuses (same reasons), or followed on the same host slot.
            if transfer.redirects >= configuration.maxRedirects {
                code = CURLE_TOO_MANY_REDIRECTS
            } else if !Self.mayRedirect(from: transfer.hostKey, to: target, allowingDowngrade: configuration.allowsHTTPSDowngrade) {
                code = CURLE_UNSUPPORTED_PROTOCOL
                transfer.effectiveURL = target
            } else {
                releaseEasy(transfer)
                transfer.discardTempFile()
                transfer.url = target
                transfer.redirects += 1
                startAttempt(transfer, redirect: true)
                return
            }
        }
        releaseEasy(transfer)
        releaseSlot(transfer.hostKey)

        let report = AttemptReport(
            code: code, status: transfer.status, reasonPhrase: transfer.reasonPhrase, osErrno: osErrno, connected: connectTime > 0,
            bodyTooLarge: transfer.bodyTooLarge, fileError: transfer.fileError, errorText: transfer.errorText,
            contentLength: transfer.contentLength, bytesWritten: transfer.bytesWritten, retryAfterValue: transfer.retryAfterValue,
            effectiveURL: transfer.effectiveURL, requestURL: transfer.request.url, hostKey: transfer.hostKey,
            attemptTimeout: transfer.attemptTimeout, isPost: transfer.request.postBody != nil)
        let attempts = transfer.attempts
        switch AttemptClassifier.classify(report, configuration: configuration, wallNow: clock.wallNow) {
        case .downloaded:
            if let error = transfer.commitTempFile() {
                finish(transfer, .failed(TransferFailure(kind: .fileSystem, reason: error, attempts: attempts)))
                return
            }
            let file = DownloadedFile(path: transfer.request.destinationPath, status: transfer.status, byteCount: transfer.bytesWritten,
                                      validators: transfer.responseValidators, attempts: attempts)
            if file.status == 200, !file.validators.isEmpty { rememberedValidators[transfer.request.validatorKey] = file.validators }
            finish(transfer, .downloaded(file))
        case .notModified:
            transfer.discardTempFile()
            var validators = transfer.sentValidators
            if let etag = transfer.responseValidators.etag { validators.etag = etag }
            if let date = transfer.responseValidators.lastModified { validators.lastModified = date }
            finish(transfer, .notModified(validators))
        case .fail(let kind, let reason):
            if case .httpStatus(let status) = kind, transfer.request.keepsErrorBody, (400..<500).contains(status),
               transfer.bytesWritten > 0, transfer.commitTempFile() == nil {
                // The server's explanation, delivered to the widget that asked for it (no validators kept).
                finish(transfer, .downloaded(DownloadedFile(path: transfer.request.destinationPath, status: status,
                                                            byteCount: transfer.bytesWritten, validators: Validators(),
                                                            attempts: attempts)))
                return
            }
            transfer.discardTempFile()
            finish(transfer, .failed(TransferFailure(kind: kind, reason: reason, attempts: attempts)))
        case .retry(let kind, let reason, let retryAfter):
            transfer.discardTempFile()
            transfer.lastRetryAfter = retryAfter
            let policy = configuration.retry
            let decision = AttemptClassifier.decide(
                reason: reason, retryAfter: retryAfter, attempts: attempts, policy: policy,
                jitter: { policy.jitter?() ?? random.nextUnit() }, now: clock.now, deadline: transfer.deadline,
                transferDeadline: configuration.transferDeadline)
            switch decision {
            case .giveUp(let reason):
                finish(transfer, .failed(TransferFailure(kind: kind, reason: reason, attempts: attempts, retryAfter: retryAfter)))
            case .wait(let delay):
                let until = clock.now + delay
                transfer.notBefore = until
                transfer.waitNumber += 1
                waiting[transfer.id] = transfer
                mailbox.waitStarted(transfer.id, CurlTransport.RetryWait(
                    until: until, isRetryAfter: retryAfter != nil, number: transfer.waitNumber))
                transfer.events(.retrying(attempt: attempts, delay: delay, reason: URLRedaction.redactingURLs(in: reason)))
            }
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

    /// See `TransportText.milliseconds` (kept here for the curl options that take milliseconds).
    static func milliseconds(_ d: Duration) -> Int { TransportText.milliseconds(d) }

    /// The protocols curl may follow a redirect to: a transfer that starts on https stays on
    /// https unless downgrades are allowed; one that starts on http may move to https.
    static func redirectProtocols(for hostKey: String, allowingDowngrade: Bool) -> String {
        hostKey.hasPrefix("https:") && !allowingDowngrade ? "https" : "http,https"
    }

    /// Whether a redirect the transport follows itself may go to `target`: an http or https URL
    /// whose scheme `redirectProtocols` allows.
    static func mayRedirect(from hostKey: String, to target: String, allowingDowngrade: Bool) -> Bool {
        guard let key = Self.hostKey(target), let scheme = key.split(separator: ":").first else { return false }
        return redirectProtocols(for: hostKey, allowingDowngrade: allowingDowngrade).split(separator: ",").contains(scheme)
    }

    /// The absolute URL a 3xx answer points to (`CURLINFO_REDIRECT_URL`), else nil.
    private func redirectTarget(_ easy: UnsafeMutableRawPointer, status: Int) -> String? {
        guard (300..<400).contains(status), status != 304 else { return nil }
        var raw: UnsafeMutablePointer<CChar>?
        wh_curl_easy_getinfo_string(easy, CURLINFO_REDIRECT_URL, &raw)
        return raw.map { String(cString: $0) }
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

    /// See `TransportText.seconds`.
    static func seconds(_ d: Duration) -> String { TransportText.seconds(d) }
}
