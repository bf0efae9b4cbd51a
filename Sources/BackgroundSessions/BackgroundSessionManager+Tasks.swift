import FoundationEssentials

/// Tasks: journalled before they start, run on the transport, their results journalled (on
/// the store's queue) and added to the delivery — except a conditional re-fetch, which runs in
/// memory and is journalled only when its result is a change (`startInMemory`).
extension BackgroundSessionManager {
    func downloadTask(session identifier: String, url: URL, taskDescription: String?,
                      headers: [String: String] = [:], conditional: Bool = true,
                      keepsErrorBody: Bool = false) -> BackgroundDownloadTask {
        let urlString = url.absoluteString
        if conditional, let task = startInMemory(session: identifier, url: url, taskDescription: taskDescription, headers: headers) {
            return task
        }
        enum Next { case existing(BackgroundDownloadTask), start(BackgroundDownloadTask), failed(BackgroundDownloadTask) }
        func runningTask(_ s: State) -> BackgroundDownloadTask? { s.runningTask(session: identifier, url: urlString) }
        // In memory first: a task in flight for the URL, or one a crash left suspended.
        let known = state.withLock { s -> Next? in
            if let running = runningTask(s) { return .existing(running) }
            guard let suspended = s.suspended.values.first(where: { $0.sessionIdentifier == identifier && $0.url.absoluteString == urlString })
            else { return nil }
            s.suspended[suspended.taskIdentifier] = nil
            let task = makeTask(id: suspended.taskIdentifier, session: identifier, description: suspended.taskDescription,
                                url: url, state: .running, attempts: suspended.attempts)
            s.running[task.taskIdentifier] = Running(task: task)
            return .start(task)
        }
        // A new task: journalled before it starts. On the store's queue, so two callers asking
        // for the same URL cannot both insert one.
        let next = known ?? store.sync { store -> Next in
            let inserted = availability == .available && !state.withLock({ $0.closed })
                ? store.insertTask(session: identifier, description: taskDescription, url: urlString, now: now()) : nil
            switch inserted {
            case .success(let id):
                let task = makeTask(id: id, session: identifier, description: taskDescription, url: url, state: .running)
                let existing = state.withLock { s -> BackgroundDownloadTask? in
                    if let running = runningTask(s) { return running }  // resumed meanwhile
                    s.running[id] = Running(task: task)
                    return nil
                }
                guard let existing else { return .start(task) }
                store.deleteTasks([id])
                return .existing(existing)
            case .failure(let error):
                let task = memoryTask(session: identifier, description: taskDescription, url: url, negative: true)
                record(task, outcome: .failed(reason: "cannot write the journal: \(error)", attempts: 0, retryAfter: nil), in: store)
                return .failed(task)
            case nil:
                let message: String
                if case .unavailable(let m) = availability { message = m } else { message = "the background session manager is closed" }
                let task = memoryTask(session: identifier, description: taskDescription, url: url, negative: false)
                record(task, outcome: .unavailable(message), in: store)
                return .failed(task)
            }
        }
        switch next {
        case .existing(let task): return task
        case .failed(let task):
            schedulePump(identifier)
            return task
        case .start(let task):
            startTransfer(task, headers: headers, conditional: conditional, keepsErrorBody: keepsErrorBody)
            return task
        }
    }

    /// `downloadTask` for the delivery queue (the loop), which must not wait: a task in flight
    /// for the URL is joined, and a new one is journalled and started only when its insert is a
    /// WAL append made at once (`SessionStore.immediately`: the journal free, nothing queued,
    /// no commit that would fsync) and succeeds. Nil otherwise — nothing journalled, nothing
    /// started: ask with `downloadTask` off the loop.
    func downloadTaskWithoutWaiting(session identifier: String, url: URL, taskDescription: String?) -> BackgroundDownloadTask? {
        let urlString = url.absoluteString
        if let task = startInMemory(session: identifier, url: url, taskDescription: taskDescription) { return task }
        enum Found: Sendable { case existing(BackgroundDownloadTask), inserted(BackgroundDownloadTask) }
        // Under the journal's lock, as `downloadTask`'s insert: two callers cannot both insert.
        let found = store.immediately { store -> Found? in
            let known = state.withLock { s -> (running: BackgroundDownloadTask?, usable: Bool) in
                // A suspended one is resumed by `downloadTask`.
                (s.runningTask(session: identifier, url: urlString), !s.closed && s.suspended.isEmpty)
            }
            if let running = known.running { return .existing(running) }
            guard availability == .available, known.usable,
                  case .success(let id)? = store.insertTask(session: identifier, description: taskDescription, url: urlString, now: now())
            else { return nil }
            let task = makeTask(id: id, session: identifier, description: taskDescription, url: url, state: .running)
            state.withLock { $0.running[id] = Running(task: task) }
            return .inserted(task)
        }
        switch found ?? nil {
        case nil: return nil
        case .existing(let task)?: return task
        case .inserted(let task)?:
            startTransfer(task)
            return task
        }
    }

    /// The key of `State.validated`.
    static func validatedKey(session: String, url: String) -> String { "\(session.utf8.count):\(session)\(url)" }

    /// A conditional re-fetch — of a URL whose 200 with validators this manager recorded, so
    /// the transport sends them back — starts without a journal write: the task runs in memory
    /// under an identifier the journal never gave (`SessionStore.reserveTaskID`). A 304 is
    /// delivered from memory and writes nothing; any other result makes the task's row with
    /// its event, in one transaction (`record`). What a kill loses, then, is a fetch in flight
    /// or a 304 not yet delivered: the widget already has that data (the 200 it validates was
    /// journalled and acknowledged, so its delegate saved it), and asks again at its next
    /// fetch; a task in flight is not resumed by the next host. Nil when this is not such a
    /// fetch (or a task for the URL runs: the caller joins it).
    private func startInMemory(session identifier: String, url: URL, taskDescription: String?,
                               headers: [String: String] = [:]) -> BackgroundDownloadTask? {
        let urlString = url.absoluteString
        let key = Self.validatedKey(session: identifier, url: urlString)
        guard availability == .available,
              state.withLock({ s in
                  !s.closed && s.validated.contains(key) && s.runningTask(session: identifier, url: urlString) == nil
                      && !s.suspended.values.contains { $0.sessionIdentifier == identifier && $0.url.absoluteString == urlString }
              })
        else { return nil }
        let task = makeTask(id: store.reserveTaskID(), session: identifier, description: taskDescription, url: url, state: .running)
        let started = state.withLock { s -> Bool in
            guard !s.closed, s.runningTask(session: identifier, url: urlString) == nil else { return false }
            s.running[task.taskIdentifier] = Running(task: task, journalled: false)
            return true
        }
        guard started else { return nil }  // started meanwhile: the caller joins it
        startTransfer(task, headers: headers)
        return task
    }

    func makeTask(id: Int, session: String, description: String?, url: URL, state: BackgroundDownloadTask.State,
                  attempts: Int = 0) -> BackgroundDownloadTask {
        BackgroundDownloadTask(taskIdentifier: id, sessionIdentifier: session, taskDescription: description, url: url,
                               state: state, attempts: attempts, cancel: { [weak self] in self?.cancel(taskIdentifier: $0) },
                               retryNow: { [weak self] in self?.retryNow(taskIdentifier: $0) ?? .notWaiting })
    }

    /// A completed task that was never journalled (sessions unavailable, or the journal failed:
    /// then its identifier is negative).
    private func memoryTask(session: String, description: String?, url: URL, negative: Bool) -> BackgroundDownloadTask {
        let id = state.withLock { s in
            defer { s.nextMemoryID += 1 }
            return s.nextMemoryID
        }
        return makeTask(id: negative ? -id : id, session: session, description: description, url: url, state: .completed)
    }

    /// - Parameter headers: extra request headers, kept in memory only (never journalled: they
    ///   may carry credentials), so a task resumed after a restart goes without them until a
    ///   widget asks for it again with its headers.
    /// - Parameter conditional: false sends no validators (an empty set replaces remembered ones).
    /// - Parameter keepsErrorBody: a final 4xx answer's body is delivered as a download
    ///   (`TransferRequest.keepsErrorBody`); in memory only, like the headers.
    func startTransfer(_ task: BackgroundDownloadTask, headers: [String: String] = [:], conditional: Bool = true,
                       keepsErrorBody: Bool = false) {
        let directory = filesDirectory(session: task.sessionIdentifier)
        do {
            try SessionFiles.prepareDirectory(stateDirectory: stateDirectory,
                                              component: FilePaths.component(forIdentifier: task.sessionIdentifier))
        } catch {
            // Possibly on the delivery queue (`resumeTasks`): the result is journalled without waiting.
            finishTransfer(task.taskIdentifier, .failed(TransferFailure(kind: .fileSystem, reason: error.description, attempts: 0)),
                           wait: false)
            return
        }
        let request = TransferRequest(url: task.url.absoluteString, directory: directory,
                                      fileName: SessionFiles.bodyName(task.taskIdentifier), headers: headers,
                                      validators: conditional ? nil : Validators(), keepsErrorBody: keepsErrorBody)
        let id = task.taskIdentifier
        let transferID = transport.start(request) { [weak self] event in
            switch event {
            case .retrying(let attempt, _, let reason): self?.attemptFailed(id, attempt: attempt, reason: reason)
            case .finished(let result): self?.finishTransfer(id, result)
            }
        }
        state.withLock { $0.running[id]?.transfer = transferID }
        hooks.afterTransferStarted?(task)
    }

    private func attemptFailed(_ id: Int, attempt: Int, reason: String) {
        guard let running = state.withLock({ $0.running[id] }) else { return }
        running.task.update(attempts: attempt, lastError: reason)
        guard running.journalled else { return }  // no row yet: the result carries the attempts
        let now = now()
        store.async { $0.recordAttempt(id, attempts: attempt, reason: reason, now: now) }
    }

    /// A transfer ended: its task leaves `running`, its result is journalled on the store's
    /// queue — the transport's thread waits for the commit (`wait`), as callers expect the
    /// event pending when the transport's callback returns — and then routed.
    private func finishTransfer(_ id: Int, _ result: TransferResult, wait: Bool = true) {
        let finished = state.withLock { s -> Running? in
            guard let running = s.running.removeValue(forKey: id), !s.closed else { return nil }
            s.resultsInFlight += 1
            return running
        }
        guard let finished else { return }
        let task = finished.task, journalled = finished.journalled
        let outcome: SessionEvent.Outcome
        switch result {
        case .downloaded(let f):
            // The transport wrote it where `startTransfer` asked: the body's derived path.
            outcome = .downloaded(file: bodyPath(session: task.sessionIdentifier, taskID: id), status: f.status,
                                  byteCount: f.byteCount, validators: f.validators, attempts: f.attempts)
            task.update(attempts: f.attempts)
        case .notModified(let v): outcome = .notModified(v)
        case .failed(let f):
            outcome = .failed(reason: f.reason, attempts: f.attempts, retryAfter: f.retryAfter)
            task.update(attempts: f.attempts)
        case .cancelled: outcome = .cancelled
        }
        task.update(state: .completed)
        if !journalled, case .notModified = outcome {
            // Nothing new: delivered from memory, no journal write (`startInMemory`).
            let event = recordCounted(task, outcome: outcome, journalled: false, in: nil, afterRecorded: hooks.afterResultRecorded)
            if let event { schedulePump(event.sessionIdentifier) }
        } else if wait {
            // Routed once the journal is free again: the delivery's writes can then be made at
            // once on its queue rather than queued behind this one (`SessionStore.immediately`).
            let event = store.sync { store in
                recordCounted(task, outcome: outcome, journalled: journalled, in: store, afterRecorded: hooks.afterResultRecorded)
            }
            if let event { schedulePump(event.sessionIdentifier) }
        } else {
            recordLater(task, outcome: outcome, journalled: journalled, afterRecorded: hooks.afterResultRecorded)
        }
    }

    /// Records a result on the store's queue without waiting, then routes it. `resultsInFlight` was counted.
    private func recordLater(_ task: BackgroundDownloadTask, outcome: SessionEvent.Outcome, journalled: Bool = true,
                             afterRecorded: (@Sendable (SessionEvent) -> Void)? = nil) {
        store.async { [self] store in
            if let event = recordCounted(task, outcome: outcome, journalled: journalled, in: store, afterRecorded: afterRecorded) {
                schedulePump(event.sessionIdentifier)
            }
        }
    }

    /// Records a result counted in `resultsInFlight` (on the store's queue; nil `store`: in
    /// memory only, on any thread); the caller routes it.
    private func recordCounted(_ task: BackgroundDownloadTask, outcome: SessionEvent.Outcome, journalled: Bool, in store: SessionStore?,
                               afterRecorded: (@Sendable (SessionEvent) -> Void)?) -> SessionEvent? {
        let event = state.withLock { $0.closed } ? nil : record(task, outcome: outcome, journalled: journalled, in: store)
        state.withLock { $0.resultsInFlight -= 1 }
        guard let event else { return nil }
        afterRecorded?(event)
        return event
    }

    /// Journals a task's result (in memory when there is no journal or the write failed, or
    /// with no `store`), adds its event to the delivery and applies retention; the task is
    /// completed. On the store's queue. `journalled` false: the task has no row yet (it ran in
    /// memory), the result makes it.
    @discardableResult
    func record(_ task: BackgroundDownloadTask, outcome: SessionEvent.Outcome, journalled: Bool = true,
                in store: SessionStore?) -> SessionEvent {
        task.update(state: .completed)
        let recorded = store?.recordResult(task: task, outcome: outcome, now: now(), insertingTask: !journalled)
        let now = now()
        let (event, dropped) = state.withLock { s -> (SessionEvent, [SessionEvent]) in
            s.completed[task.taskIdentifier] = task
            if case .downloaded(_, 200, _, let validators, _) = outcome, !validators.isEmpty {
                s.validated.insert(Self.validatedKey(session: task.sessionIdentifier, url: task.url.absoluteString))
            }
            let event = recorded ?? memoryEvent(&s, task: task, outcome: outcome, now: now)
            s.delivery.add(event)
            let dropped = s.delivery.prune(now: now, retention: retention)
            for event in dropped { s.completed[event.taskIdentifier] = nil }
            return (event, dropped)
        }
        if let store { store.discard(dropped) } else if !dropped.isEmpty { self.store.async { $0.discard(dropped) } }
        return event
    }

    private func memoryEvent(_ s: inout State, task: BackgroundDownloadTask, outcome: SessionEvent.Outcome, now: Date) -> SessionEvent {
        // Above every journalled id, so it is delivered after them.
        let id = SessionStore.memoryEventIDBase + Int64(s.nextMemoryID)
        s.nextMemoryID += 1
        return SessionEvent(eventID: id, sessionIdentifier: task.sessionIdentifier, taskIdentifier: task.taskIdentifier,
                            taskDescription: task.taskDescription, url: task.url.absoluteString, outcome: outcome,
                            recorded: now, deliveryCount: 0)
    }

    /// Cancels a task that has not completed; its delegate gets `.cancelled`.
    public func cancel(taskIdentifier id: Int) {
        let (task, transfer, journalled) = state.withLock { s -> (BackgroundDownloadTask?, TransferID?, Bool) in
            if let running = s.running.removeValue(forKey: id) {
                s.resultsInFlight += 1
                return (running.task, running.transfer, running.journalled)
            }
            if let suspended = s.suspended.removeValue(forKey: id) {
                s.resultsInFlight += 1
                return (suspended, nil, true)
            }
            return (nil, nil, true)
        }
        guard let task else { return }
        task.update(state: .completed)
        recordLater(task, outcome: .cancelled, journalled: journalled)
        if let transfer { transport.cancel(transfer) }
    }

    /// Cuts a running task's retry wait short (`BackgroundDownloadTask.retryNow()`); a server's
    /// `Retry-After` is honoured. `.notWaiting` for a task that is suspended, completed, unknown,
    /// or whose transfer has not been handed to the transport yet.
    @discardableResult
    public func retryNow(taskIdentifier id: Int) -> RetryNowResult {
        guard let transfer = state.withLock({ $0.running[id]?.transfer }) else { return .notWaiting }
        return transport.retryNow(transfer)
    }

    /// Starts again the tasks that were in flight when the host stopped, under their
    /// identifiers, with the URL `urlFor(sessionIdentifier, taskDescription)` gives now; then
    /// routes pending events (`routePendingEvents()`).
    ///
    /// A task for which `urlFor` returns nil (its widget is gone) stays suspended and listed
    /// until it is cancelled or purged. Like `downloadTask`, at most one task runs per session
    /// and URL: of several that would fetch the same URL in one session (a journal holding
    /// hundreds), the oldest starts and the others are dropped from the journal without an
    /// event — the widget gets the one result it asked for. Transfers to one host wait their
    /// turn in the transport (`CurlTransportConfiguration.maxConcurrentPerHost`). Returns the
    /// tasks started. The journal is updated on the store's queue: the host may call this on
    /// its delivery queue. `resumeURL(for:)` makes `urlFor` from the widgets' configurations.
    @discardableResult
    public func resumeTasks(urlFor: (_ sessionIdentifier: String, _ taskDescription: String?) -> URL?) -> [BackgroundDownloadTask] {
        func key(_ session: String, _ url: String) -> String { "\(session.utf8.count):\(session)\(url)" }
        let (suspended, running) = state.withLock { s in
            (s.suspended.values.sorted { $0.taskIdentifier < $1.taskIdentifier },
             Set(s.running.values.map { key($0.task.sessionIdentifier, $0.task.url.absoluteString) }))
        }
        var runningKeys = running
        var duplicates: [Int] = []
        var started: [BackgroundDownloadTask] = []
        for old in suspended {
            guard let url = urlFor(old.sessionIdentifier, old.taskDescription) else { continue }
            let urlString = url.absoluteString
            let task = state.withLock { s -> BackgroundDownloadTask? in
                guard !s.closed, s.suspended[old.taskIdentifier] != nil else { return nil }
                s.suspended[old.taskIdentifier] = nil
                // Checked against the tasks running *now*, under the lock: a widget's provider may
                // have started the same fetch since the snapshot above.
                let startedMeanwhile = s.running.values.contains {
                    $0.task.sessionIdentifier == old.sessionIdentifier && $0.task.url.absoluteString == urlString
                }
                guard !startedMeanwhile, runningKeys.insert(key(old.sessionIdentifier, urlString)).inserted else {
                    // The same fetch as a task running now (resumed just before, or joined by a widget).
                    duplicates.append(old.taskIdentifier)
                    return nil
                }
                let task = makeTask(id: old.taskIdentifier, session: old.sessionIdentifier, description: old.taskDescription,
                                    url: url, state: .running, attempts: old.attempts)
                s.running[task.taskIdentifier] = Running(task: task)
                return task
            }
            if let task {
                // Queued before the transfer starts, so before its result.
                let now = now()
                store.async { $0.updateTaskURL(task.taskIdentifier, url: urlString, now: now) }
                startTransfer(task)
                started.append(task)
            }
        }
        if !duplicates.isEmpty {
            store.async { [duplicates] in $0.deleteTasks(duplicates) }
        }
        routePendingEvents()
        return started
    }
}

extension BackgroundSessionManager.State {
    /// The task in flight for `url` in session `session`, if any (one per URL and session).
    func runningTask(session: String, url: String) -> BackgroundDownloadTask? {
        running.values.first { $0.task.sessionIdentifier == session && $0.task.url.absoluteString == url }?.task
    }
}
