import FoundationEssentials

/// Which events wait for which session identifier, and where each identifier's delivery
/// stands: the manager's delivery rules as a value, with no I/O, no queue and no clock.
///
/// The manager asks `next(_:hasDelegate:)` what to do for an identifier, does it (asks the
/// router, calls the handler, writes the journal, calls the delegate) and reports back
/// (`routed`, `deliveryRecorded`, `delivered`, `completionCalled`, `acknowledged`). The rules
/// (WidgetKit's order, see `BackgroundSessionManager`):
/// - Events of an idle identifier are routed; no handler keeps them (`.wait`) until the next
///   routing. A handler found is called once per batch, with a new `generation`.
/// - Delivery starts only once the handler has been called **and** a delegate is attached: the
///   batch is every event pending then; the journal counts the delivery first
///   (`.recordDelivery`), then the delegate gets the batch (`.deliver`).
/// - A completion acknowledges the batch once it is delivered (`.acknowledge`), whether it was
///   called before or after the delivery ended. A completion of an older generation, a second
///   one, or one called with no delegate attached acknowledges nothing (the events wait for
///   the next routing).
/// - The events are removed only when the journal has acknowledged them; events recorded
///   while a batch is out stay for the next batch, with a new handler call.
struct DeliveryState: Sendable {
    enum Phase: Sendable, Equatable {
        case idle
        /// The handler was called; waiting for a delegate (and, without one, the completion).
        case handlerCalled
        /// The journal is counting the delivery of the batch.
        case recordingDelivery([SessionEvent])
        /// Counted: the next step hands the batch to the delegate.
        case readyToDeliver([SessionEvent])
        /// The delegate is being called.
        case delivering([SessionEvent])
        /// Delivered: waiting for the handler's completion.
        case awaitingCompletion([SessionEvent])
        /// The journal is acknowledging the batch.
        case acknowledging([SessionEvent])
        /// The journal refused the acknowledgement: the events wait for `retryDue`.
        case retryWait
    }

    struct Route: Sendable, Equatable {
        var phase: Phase = .idle
        var generation = 0
        var completionCalled = false
    }

    /// What the manager should do next for an identifier.
    enum Step: Sendable, Equatable {
        /// Nothing now: no events, no handler, or waiting for the journal, the delegate or the completion.
        case wait
        /// Ask the router for a handler, then call `routed(_:found:)`.
        case route
        /// Call the handler with a completion for this generation.
        case callHandler(generation: Int)
        /// Count the batch's delivery in the journal, then call `deliveryRecorded(_:)`.
        case recordDelivery([SessionEvent])
        /// Hand the batch to the delegate, then call `delivered(_:)`.
        case deliver([SessionEvent])
        /// Acknowledge the batch in the journal, then call `acknowledged(_:succeeded:)`.
        case acknowledge([SessionEvent])
    }

    private(set) var pending: [String: [SessionEvent]] = [:]
    private(set) var routes: [String: Route] = [:]

    /// Adds a recorded event, in delivery (event id) order.
    mutating func add(_ event: SessionEvent) {
        var events = pending[event.sessionIdentifier, default: []]
        if let last = events.last, last.eventID > event.eventID {
            events.insert(event, at: events.firstIndex { $0.eventID > event.eventID } ?? events.endIndex)
        } else {
            events.append(event)
        }
        pending[event.sessionIdentifier] = events
    }

    func phase(_ identifier: String) -> Phase { routes[identifier]?.phase ?? .idle }

    /// Identifiers with events waiting, sorted.
    var identifiersWithEvents: [String] { pending.filter { !$0.value.isEmpty }.keys.sorted() }

    /// Every pending event, in delivery order.
    var allPending: [SessionEvent] { pending.values.flatMap { $0 }.sorted { $0.eventID < $1.eventID } }

    var hasPending: Bool { !pending.values.allSatisfy(\.isEmpty) }

    /// The next step for `identifier`; `hasDelegate` says whether its session has a delegate now.
    mutating func next(_ identifier: String, hasDelegate: Bool) -> Step {
        var route = routes[identifier] ?? Route()
        defer { routes[identifier] = route }
        let events = pending[identifier] ?? []
        switch route.phase {
        case .idle:
            return events.isEmpty ? .wait : .route
        case .handlerCalled:
            guard hasDelegate else {
                // Completed without attaching a delegate: nothing was delivered.
                if route.completionCalled { route.phase = .idle }
                return .wait
            }
            route.phase = .recordingDelivery(events)
            return .recordDelivery(events)
        case .readyToDeliver(let batch):
            route.phase = .delivering(batch)
            return .deliver(batch)
        case .awaitingCompletion(let batch):
            guard route.completionCalled else { return .wait }
            route.phase = .acknowledging(batch)
            return .acknowledge(batch)
        case .recordingDelivery, .delivering, .acknowledging, .retryWait:
            return .wait
        }
    }

    /// The router answered for an idle identifier: with a handler, it is to be called.
    mutating func routed(_ identifier: String, found: Bool) -> Step {
        guard found, phase(identifier) == .idle, !(pending[identifier] ?? []).isEmpty else { return .wait }  // unmatched: kept
        var route = routes[identifier] ?? Route()
        route.generation += 1
        route.completionCalled = false
        route.phase = .handlerCalled
        routes[identifier] = route
        return .callHandler(generation: route.generation)
    }

    /// The journal has counted the delivery (or failed to: it is delivered all the same).
    mutating func deliveryRecorded(_ identifier: String) {
        guard case .recordingDelivery(let batch) = phase(identifier) else { return }
        routes[identifier]?.phase = .readyToDeliver(batch)
    }

    /// The delegate has had the batch and `urlSessionDidFinishEvents`.
    mutating func delivered(_ identifier: String) {
        guard case .delivering(let batch) = phase(identifier) else { return }
        routes[identifier]?.phase = .awaitingCompletion(batch)
    }

    /// The handler's completion of `generation` was called; true when it counts (the first of
    /// the current generation), so the identifier's delivery may move on.
    mutating func completionCalled(_ identifier: String, generation: Int) -> Bool {
        guard let route = routes[identifier], route.generation == generation, !route.completionCalled else { return false }
        routes[identifier]?.completionCalled = true
        return true
    }

    /// The journal has acknowledged the batch (or failed to: then the events stay pending and
    /// are routed again once `retryDue` says so — at once they would go round as fast as the
    /// journal fails).
    mutating func acknowledged(_ identifier: String, succeeded: Bool) {
        guard case .acknowledging(let batch) = phase(identifier) else { return }
        routes[identifier]?.phase = succeeded ? .idle : .retryWait
        guard succeeded else { return }
        let ids = Set(batch.map(\.eventID))
        pending[identifier]?.removeAll { ids.contains($0.eventID) }
    }

    /// The wait after a refused acknowledgement is over: the events are routed again.
    mutating func retryDue(_ identifier: String) {
        guard phase(identifier) == .retryWait else { return }
        routes[identifier]?.phase = .idle
    }

    /// Drops the events past `retention` (older than `now - maxAge`, or beyond the most kept
    /// per identifier, oldest first) of identifiers not in the middle of a delivery; returns them.
    mutating func prune(now: Date, retention: BackgroundSessionManager.Retention) -> [SessionEvent] {
        let oldest = now.addingTimeInterval(-retention.maxAge)
        var dropped: [SessionEvent] = []
        for (identifier, events) in pending where phase(identifier) == .idle {
            var keep = events.filter { $0.recorded >= oldest }
            if keep.count > retention.maxEventsPerSession { keep.removeFirst(keep.count - max(0, retention.maxEventsPerSession)) }
            guard keep.count != events.count else { continue }
            let kept = Set(keep.map(\.eventID))
            dropped += events.filter { !kept.contains($0.eventID) }
            pending[identifier] = keep
        }
        return dropped.sorted { $0.eventID < $1.eventID }
    }

    /// Forgets everything (the manager is closed).
    mutating func removeAll() {
        pending = [:]
        routes = [:]
    }
}
