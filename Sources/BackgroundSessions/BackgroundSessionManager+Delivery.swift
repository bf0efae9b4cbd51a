import Dispatch
import FoundationEssentials

/// Delivery: `DeliveryState` decides, this runs its steps — the router, the handler and the
/// delegate on `deliveryQueue`, the journal's writes there too when they only append to the
/// WAL (`SessionStore.immediately`: no fsync), else on the store's queue (reporting back and
/// moving the delivery on with a new turn of `deliveryQueue`).
extension BackgroundSessionManager {
    /// Routes the events of every identifier that has some waiting (after a config reload that
    /// may have added widgets, say).
    public func routePendingEvents() {
        let identifiers = state.withLock { $0.delivery.identifiersWithEvents }
        for identifier in identifiers { schedulePump(identifier) }
    }

    func schedulePump(_ identifier: String) {
        deliveryQueue.async { [self] in pump(identifier) }
    }

    /// Moves an identifier's delivery forward as far as it can go now.
    private func pump(_ identifier: String) {
        dispatchPrecondition(condition: .onQueue(deliveryQueue))
        while true {
            let (step, router) = state.withLock { s -> (DeliveryState.Step, EventRouter?) in
                guard !s.closed else { return (.wait, nil) }
                return (s.delivery.next(identifier, hasDelegate: s.delegates[identifier] != nil), s.router)
            }
            switch step {
            case .wait:
                return
            case .route:
                let handler = router?(identifier)
                let next = state.withLock { s in s.closed ? .wait : s.delivery.routed(identifier, found: handler != nil) }
                guard case .callHandler(let generation) = next, let handler else { return }  // unmatched: kept
                handler.handler(identifier) { [weak self] in self?.handlerCompleted(identifier, generation: generation) }
            case .callHandler:
                return  // only `routed` answers it
            case .recordDelivery(let batch):
                // Events only in memory (a 304 of a re-fetch, `startInMemory`): nothing to count.
                if SessionStore.journalled(batch).isEmpty || store.immediately({ $0.recordDelivery(batch) }) != nil {
                    state.withLock { $0.delivery.deliveryRecorded(identifier) }
                    continue
                }
                store.async { [self] store in
                    store.recordDelivery(batch)
                    state.withLock { $0.delivery.deliveryRecorded(identifier) }
                    schedulePump(identifier)
                }
                return
            case .deliver(let batch):
                let target = state.withLock { s -> (BackgroundSession, any BackgroundSessionDelegate)? in
                    guard !s.closed, let delegate = s.delegates[identifier] else { return nil }
                    let session = s.sessions[identifier] ?? BackgroundSession(identifier: identifier, manager: self)
                    s.sessions[identifier] = session
                    return (session, delegate)
                }
                guard let (session, delegate) = target else { return }
                deliver(batch, session: session, delegate: delegate)
                state.withLock { $0.delivery.delivered(identifier) }
            case .acknowledge(let batch):
                if SessionStore.journalled(batch).isEmpty {
                    // No journal write (`SessionStore.acknowledge` only removes their files).
                    _ = acknowledged(batch, succeeded: store.acknowledge(batch), identifier)
                    continue
                }
                if let succeeded = store.immediately({ $0.acknowledge(batch) }) {
                    _ = acknowledged(batch, succeeded: succeeded, identifier)
                    guard succeeded else { return retryLater(identifier) }
                    continue
                }
                store.async { [self] store in
                    // Usually nothing is left: no turn of the delivery queue (a wake-up of the
                    // loop per fetch) for nothing. Events that came meanwhile move on; a batch
                    // the journal refused to acknowledge is delivered again later.
                    let succeeded = store.acknowledge(batch)
                    guard acknowledged(batch, succeeded: succeeded, identifier) else { return }
                    if succeeded { schedulePump(identifier) } else { retryLater(identifier) }
                }
                return
            }
        }
    }

    /// Seconds before a batch the journal refused to acknowledge (a full disk, a read-only file
    /// system) is delivered again: its events stay pending, and delivering them again at once
    /// would go round the loop as fast as the journal fails.
    static let acknowledgeRetrySeconds = 5.0

    /// Moves `identifier`'s delivery on after `acknowledgeRetrySeconds`.
    private func retryLater(_ identifier: String) {
        let delay = hooks.acknowledgeRetrySeconds ?? Self.acknowledgeRetrySeconds
        let retry: @Sendable () -> Void = { [weak self] in
            guard let self else { return }
            state.withLock { $0.delivery.retryDue(identifier) }
            pump(identifier)
        }
        if let clock = hooks.acknowledgeRetryClock {
            _ = clock.schedule(at: clock.now.addingTimeInterval(delay)) { [deliveryQueue] in deliveryQueue.async(execute: retry) }
        } else {
            deliveryQueue.asyncAfter(deadline: .now() + delay, execute: retry)
        }
    }

    /// The journal has acknowledged `batch` (or failed to); true when events of `identifier` wait.
    private func acknowledged(_ batch: [SessionEvent], succeeded: Bool, _ identifier: String) -> Bool {
        state.withLock { s -> Bool in
            s.delivery.acknowledged(identifier, succeeded: succeeded)
            if succeeded { for event in batch { s.completed[event.taskIdentifier] = nil } }
            return !(s.delivery.pending[identifier] ?? []).isEmpty
        }
    }

    private func handlerCompleted(_ identifier: String, generation: Int) {
        if state.withLock({ $0.delivery.completionCalled(identifier, generation: generation) }) { schedulePump(identifier) }
    }

    private func deliver(_ batch: [SessionEvent], session: BackgroundSession, delegate: any BackgroundSessionDelegate) {
        for event in batch {
            let task = state.withLock { $0.completed[event.taskIdentifier] }
                ?? makeTask(id: event.taskIdentifier, session: event.sessionIdentifier, description: event.taskDescription,
                            url: URL(string: event.url) ?? URL(fileURLWithPath: "/"), state: .completed)
            var error: BackgroundTaskError?
            switch event.outcome {
            case .downloaded(let file, _, _, _, _):
                // The delegate gets a hard link that is removed after the call; the kept file
                // stays until the completion, for a re-delivery after a crash. Both are named by
                // the session and the task only (`SessionFiles`).
                if let location = store.linkForDelivery(event) {
                    delegate.urlSession(session, downloadTask: task, didFinishDownloadingTo: URL(fileURLWithPath: location))
                    store.removeDeliveryLink(event)
                } else {
                    error = .fileMissing(file)
                }
            case .notModified(let validators): error = .notModified(validators)
            case .failed(let reason, let attempts, let retryAfter): error = .failed(reason: reason, attempts: attempts, retryAfter: retryAfter)
            case .cancelled: error = .cancelled
            case .unavailable(let message): error = .unavailable(message)
            }
            delegate.urlSession(session, task: task, didCompleteWithError: error)
        }
        delegate.urlSessionDidFinishEvents(forBackgroundURLSession: session)
    }
}
