#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import ExtensionProtocol
import FoundationEssentials
import JSONTree
import Synchronization

/// Background sessions on an extension's behalf: `download` starts a task in the host's
/// session manager, and the events come back as `sessionEvents`, acknowledged only once the
/// extension answers.
extension ExtensionHost {
    /// The prefix of the session identifiers the host uses on this extension's behalf.
    var sessionPrefix: String { "ext.\(name)." }

    /// Whether `identifier` is a session of this extension.
    public func ownsSession(_ identifier: String) -> Bool { identifier.hasPrefix(sessionPrefix) }

    /// The message a download started with headers gets when the host stopped while it ran.
    static let interruptedWithHeaders = "the host stopped while this download ran and kept its headers in memory only, so it was not resumed: download it again"

    /// `download {identifier, url, headers?, description?, conditional?}` → `{task}`: a task in
    /// the host's session manager and journal, under `ext.NAME.IDENTIFIER`. Headers go to the
    /// transport only (never the journal or the log); the ledger marks the task as having had
    /// some. `conditional: false` sends no validators, so the answer has a body (not a 304).
    func download(_ params: JSONValue?, id: JSONValue?) throws(ExtensionConnection.ProtocolViolation) -> String? {
        guard let id else { throw .init("sent download as a notification; it is a request") }
        func refuse(_ code: Int, _ message: String) -> String { RPCMessage.error(id: id, code: code, message: message) }
        guard case .object(let object)? = params else { return refuse(-32602, "download expects {identifier, url, headers?, description?, conditional?}") }
        for key in object.keys where !DownloadParameter.allCases.contains(where: { $0.rawValue == key }) {
            return refuse(-32602, "download: unknown parameter '\(RPCMessage.printable(key, limit: 40))'")
        }
        guard case .string(let identifier)? = object["identifier"], ExtensionManifestParser.isValidName(identifier) else {
            return refuse(-32602, "download: identifier must be a name (letters, digits, '-', '_', '.'; at most 40)")
        }
        guard case .string(let text)? = object["url"], text.utf8.count <= 4096,
              text.hasPrefix("http://") || text.hasPrefix("https://"), let url = URL(string: text) else {
            return refuse(-32602, "download: url must be an http or https URL")
        }
        var description: String?
        switch object["description"] {
        case nil: break
        case .string(let given)? where given.utf8.count <= 200: description = given
        default: return refuse(-32602, "download: description must be a string of at most 200 bytes")
        }
        var headers: [String: String] = [:]
        if let given = object["headers"] {
            switch DownloadHeaders.validate(given) {
            case .success(let valid): headers = valid
            case .failure(let problem): return refuse(-32602, "download: \(problem.message)")
            }
        }
        var conditional = true
        switch object["conditional"] {
        case nil: break
        case .bool(let given)?: conditional = given
        default: return refuse(-32602, "download: conditional must be true or false")
        }
        guard let manager = state.withLock({ $0.sessions }) else {
            return refuse(-32000, "background sessions are off in this mode")
        }
        if case .unavailable(let message) = manager.availability { return refuse(-32000, message) }
        let session = sessionPrefix + identifier
        // Marked before the task is journalled: a host killed in between finds a mark without
        // a task, which it drops.
        if !headers.isEmpty { ledger()?.add(HeaderLedger.key(session: session, url: url.absoluteString)) }
        let task = manager.session(identifier: session).downloadTask(with: url, taskDescription: description, headers: headers,
                                                                             conditional: conditional)
        state.withLock { if $0.userRequests > 0 { $0.awaited[identifier] = .answer } }
        runtime.log(.info, "\(name): download \(task.taskIdentifier) in session \(identifier)"
                    + (headers.isEmpty ? "" : " with \(headers.count) header(s)") + (conditional ? "" : ", unconditional"))
        return RPCMessage.result(id: id, RPCMessage.object([("task", .integer(task.taskIdentifier))]))
    }

    /// The events of session `identifier` are ready (the manager's router matched this
    /// extension): a delegate collects them, then `sessionEvents` delivers them.
    func receiveEvents(identifier: String, completion: @escaping @Sendable () -> Void) {
        let (manager, directory) = state.withLock { state in
            (state.sessions, ExtensionLauncher.dataDirectory(name: name, stateDirectory: state.stateDirectory,
                                                             environment: state.environment))
        }
        guard let manager else { return completion() }
        let ledger = ledger()
        let marked = Set(ledger?.entries ?? [])
        let delegate = ExtensionSessionDelegate(
            identifier: String(identifier.dropFirst(sessionPrefix.count)),
            downloads: directory.map { [runtime, name] in
                ExtensionDownloads(dataDirectory: $0) { runtime.log(.error, "\(name): \($0)") }
            }, completion: completion,
            interrupted: { task in
                // Cancelled with a mark: the host failed it after a restart (the only cancel of an
                // extension's download), for want of its headers.
                marked.contains(HeaderLedger.key(session: task.sessionIdentifier, url: task.url.absoluteString))
            }) { [self] delivery in startDelivery(delivery) }
        _ = manager.session(identifier: identifier, delegate: delegate)
    }

    /// The ledger of downloads with headers, in the data directory; nil before `bind`.
    func ledger() -> HeaderLedger? { state.withLock { $0.ledger } }

    /// After a restart: a download started with headers cannot go on without them, so rather
    /// than being resumed (with its journalled URL, headerless) it is cancelled; its event
    /// reaches the extension as `failed` with `interruptedWithHeaders`, and it can start it
    /// again — nothing is lost. Marks with neither a task nor an event are dropped. Called when
    /// the host binds its session manager, before the dashboard resumes suspended tasks.
    func failInterruptedHeaderDownloads(_ manager: BackgroundSessionManager) {
        guard manager.availability == .available, let ledger = ledger() else { return }
        let marked = Set(ledger.entries)
        guard !marked.isEmpty else { return }
        var live: Set<String> = []
        for task in manager.suspendedTasks where ownsSession(task.sessionIdentifier) {
            let key = HeaderLedger.key(session: task.sessionIdentifier, url: task.url.absoluteString)
            guard marked.contains(key) else { continue }
            live.insert(key)
            runtime.log(.info, "\(name): download \(task.taskIdentifier) had headers, which were not kept; failed, not resumed")
            manager.cancel(taskIdentifier: task.taskIdentifier)
        }
        for event in manager.pendingEvents { live.insert(HeaderLedger.key(session: event.sessionIdentifier, url: event.url)) }
        ledger.remove(marked.subtracting(live))
    }

    /// Once the extension answered: the marks of the delivered downloads go, unless a task for
    /// the same URL runs again.
    private func forgetHeaderMarks(_ delivery: SessionDelivery) {
        guard !delivery.keys.isEmpty, let ledger = ledger() else { return }
        let manager = state.withLock { $0.sessions }
        let running = Set((manager?.session(identifier: sessionPrefix + delivery.identifier).allTasks ?? [])
            .filter { $0.state != .completed }
            .map { HeaderLedger.key(session: $0.sessionIdentifier, url: $0.url.absoluteString) })
        ledger.remove(delivery.keys.subtracting(running))
    }

    /// Queues `delivery` for the extension's delivery thread (`wh-ext-deliver`, started when
    /// none runs, ended when the queue is empty): one thread per extension whatever the number
    /// of sessions, delivering in order.
    func startDelivery(_ delivery: SessionDelivery) {
        let start = state.withLock { state -> Bool in
            state.deliveries.append(delivery)
            guard !state.delivering else { return false }
            state.delivering = true
            return true
        }
        guard start else { return }
        let started = DetachedThread.start(name: "wh-ext-deliver") { [self] in
            while let next = nextDelivery() { deliver(next) }
        }
        if !started {
            state.withLock { state in
                state.delivering = false
                state.held += state.deliveries
                if state.heldSince == nil { state.heldSince = runtime.clock.now }
                state.deliveries.removeAll()
            }
        }
    }

    /// The next delivery for the delivery thread; nil (and the thread marked gone) when none.
    private func nextDelivery() -> SessionDelivery? {
        state.withLock { state in
            guard !state.deliveries.isEmpty else {
                state.delivering = false
                return nil
            }
            return state.deliveries.removeFirst()
        }
    }

    /// Waits `seconds` on the host's clock (the relaunch backoff) on the delivery thread, or
    /// until a stop (the host quitting, a config reload: false, hold the events) or a reset
    /// (`R`: true, try now) ends the wait. False at once when stopped since `stopsBefore`.
    private func waitOutBackoff(seconds: Int, stopsBefore: UInt64) -> Bool {
        let wait = Latch<Bool>()
        guard state.withLock({ state -> Bool in
            guard state.stops == stopsBefore else { return false }
            state.backoffWait = wait
            return true
        }) else { return false }
        defer { state.withLock { if $0.backoffWait === wait { $0.backoffWait = nil } } }
        return wait.wait(until: runtime.clock.now + Double(seconds), clock: runtime.clock) ?? true
    }

    /// Sends `sessionEvents` (launching the extension if need be), blocking the delivery
    /// thread; acknowledges the events only once it answers, else holds them for its next
    /// launch — with those queued behind them when it timed out (they would wait as long).
    private func deliver(_ delivery: SessionDelivery) {
        // Events of a download a user's reload started: the reload they bring is the answer.
        state.withLock { $0.deliveringCause = $0.awaited.removeValue(forKey: delivery.identifier) }
        defer { state.withLock { $0.deliveringCause = nil } }
        let params = RPCMessage.object([(SessionEventsParameter.identifier.rawValue, .string(delivery.identifier)), (SessionEventsParameter.events.rawValue, .array(delivery.events))])
        // A crashed extension is relaunched for its events once the backoff has passed
        // (this thread waits it out: it has work, it is not idle); an extension that takes
        // the events and does not answer gets them again on its next launch.
        var attempt = 0
        let stops = state.withLock { $0.stops }
        while true {
            attempt += 1
            do throws(ExtensionError) {
                _ = try requestBlocking(HostMethod.sessionEvents.rawValue, params: params)
                runtime.log(.info, "\(name): delivered \(delivery.events.count) event(s) of session \(delivery.identifier)")
                state.withLock { $0.unanswered = nil }
                ExtensionDownloads.remove(delivery.files) { [runtime, name] in runtime.log(.error, "\(name): \($0)") }
                delivery.completion()
                forgetHeaderMarks(delivery)
                return
            } catch {
                // Quitting: no relaunch; the journal keeps the events for the next start.
                let quitting = state.withLock { $0.quitting }
                switch error {
                case _ where quitting:
                    break
                case .restarting(_, let seconds) where attempt <= Self.maximumCrashes:
                    if waitOutBackoff(seconds: min(max(seconds, 1), 60), stopsBefore: stops) { continue }
                case .stopped, .launchFailed:
                    if attempt <= Self.maximumCrashes { continue }
                default:
                    break
                }
                let held = state.withLock { state -> Int in
                    state.held.append(delivery)
                    if state.heldSince == nil { state.heldSince = runtime.clock.now }
                    state.unanswered = error
                    // After a timeout (or at the quit) those queued behind wait for the next launch too.
                    var holdsQueue = quitting
                    if case .timedOut = error { holdsQueue = true }
                    guard holdsQueue else { return 0 }
                    defer { state.held += state.deliveries; state.deliveries.removeAll() }
                    return state.deliveries.count
                }
                runtime.log(.error, "\(name): session \(delivery.identifier) events not answered (\(error)); delivered again on its next launch"
                            + (held > 0 ? ", with \(held) more queued behind them" : ""))
                eventsUnansweredBell.ring()
                return
            }
        }
    }
}
