@testable import BackgroundSessions
import FoundationEssentials
import Testing

private func event(_ id: Int64, _ session: String = "s", recorded: Double = 1_800_000_000) -> SessionEvent {
    SessionEvent(eventID: id, sessionIdentifier: session, taskIdentifier: Int(id), taskDescription: nil, url: "http://h/\(id)",
                 outcome: .cancelled, recorded: Date(timeIntervalSince1970: recorded), deliveryCount: 0)
}

/// Drives `state` for `id` through routing (handler found) and the delivery of what is pending,
/// answering for the journal and the delegate; returns the batch delivered.
private func deliverBatch(_ state: inout DeliveryState, _ id: String = "s") -> [SessionEvent] {
    let r1 = state.next(id, hasDelegate: true)
    #expect(r1 == .route)
    guard case .callHandler = state.routed(id, found: true) else { Issue.record("no handler call"); return [] }
    guard case .recordDelivery(let batch) = state.next(id, hasDelegate: true) else { Issue.record("no delivery"); return [] }
    state.deliveryRecorded(id)
    let r2 = state.next(id, hasDelegate: true)
    #expect(r2 == .deliver(batch))
    state.delivered(id)
    return batch
}

@Suite("Delivery state (which events go where, and when they are acknowledged)")
struct DeliveryStateTests {
    @Test("events are routed; no handler keeps them; a handler is called once per batch with a new generation")
    func routing() {
        var state = DeliveryState()
        let r3 = state.next("s", hasDelegate: false)
        #expect(r3 == .wait, "nothing pending")
        state.add(event(1))
        let r4 = state.next("s", hasDelegate: false)
        #expect(r4 == .route)
        let r5 = state.routed("s", found: false)
        #expect(r5 == .wait)
        #expect(state.pending["s"] == [event(1)], "unmatched: kept")
        let r6 = state.next("s", hasDelegate: false)
        #expect(r6 == .route, "routed again next time")
        let r7 = state.routed("s", found: true)
        #expect(r7 == .callHandler(generation: 1))
        let r8 = state.next("s", hasDelegate: false)
        #expect(r8 == .wait, "the handler has not attached a delegate yet")
        let r9 = state.routed("s", found: true)
        #expect(r9 == .wait, "not idle: no second handler call")
    }

    @Test("delivery waits for a delegate, counts the batch in the journal first, then hands it over")
    func deliveryOrder() {
        var state = DeliveryState()
        state.add(event(2))
        state.add(event(1))
        #expect(state.pending["s"]?.map(\.eventID) == [1, 2], "kept in delivery order")
        let r10 = state.next("s", hasDelegate: true)
        #expect(r10 == .route)
        let r11 = state.routed("s", found: true)
        #expect(r11 == .callHandler(generation: 1))
        let r12 = state.next("s", hasDelegate: true)
        #expect(r12 == .recordDelivery([event(1), event(2)]))
        let r13 = state.next("s", hasDelegate: true)
        #expect(r13 == .wait, "the journal has not answered")
        state.deliveryRecorded("s")
        let r14 = state.next("s", hasDelegate: true)
        #expect(r14 == .deliver([event(1), event(2)]))
        let r15 = state.next("s", hasDelegate: true)
        #expect(r15 == .wait, "being delivered")
        state.delivered("s")
        let r16 = state.next("s", hasDelegate: true)
        #expect(r16 == .wait, "no completion yet: nothing acknowledged")
        #expect(state.phase("s") == .awaitingCompletion([event(1), event(2)]))
    }

    @Test("the completion acknowledges the batch, whether called before or after the delivery ends; the events go once the journal has")
    func acknowledgement() {
        for early in [false, true] {
            var state = DeliveryState()
            state.add(event(1))
            let r17 = state.next("s", hasDelegate: true)
            #expect(r17 == .route)
            let r18 = state.routed("s", found: true)
            #expect(r18 == .callHandler(generation: 1))
            let r19 = state.next("s", hasDelegate: true)
            #expect(r19 == .recordDelivery([event(1)]))
            state.deliveryRecorded("s")
            let r20 = state.next("s", hasDelegate: true)
            #expect(r20 == .deliver([event(1)]))
            if early { let r21 = state.completionCalled("s", generation: 1); #expect(r21) }
            state.delivered("s")
            if !early { let late = state.completionCalled("s", generation: 1); #expect(late) }
            let r22 = state.next("s", hasDelegate: true)
            #expect(r22 == .acknowledge([event(1)]))
            #expect(state.pending["s"] == [event(1)], "kept until the journal has acknowledged")
            let r23 = state.next("s", hasDelegate: true)
            #expect(r23 == .wait)
            state.acknowledged("s", succeeded: true)
            #expect(state.pending["s"] == [] && !state.hasPending)
            let r24 = state.next("s", hasDelegate: true)
            #expect(r24 == .wait)
        }
    }

    @Test("a stale or second completion acknowledges nothing")
    func staleCompletion() {
        var state = DeliveryState()
        state.add(event(1))
        _ = deliverBatch(&state)
        let r25 = state.completionCalled("s", generation: 0)
        #expect(!r25, "an older generation")
        let r26 = state.completionCalled("other", generation: 1)
        #expect(!r26, "another identifier")
        let r27 = state.next("s", hasDelegate: true)
        #expect(r27 == .wait)
        let r28 = state.completionCalled("s", generation: 1)
        #expect(r28)
        let r29 = state.completionCalled("s", generation: 1)
        #expect(!r29, "a second call")
    }

    @Test("a completion with no delegate attached delivers and acknowledges nothing: the events wait for the next routing")
    func completionWithoutDelegate() {
        var state = DeliveryState()
        state.add(event(1))
        let r30 = state.next("s", hasDelegate: false)
        #expect(r30 == .route)
        let r31 = state.routed("s", found: true)
        #expect(r31 == .callHandler(generation: 1))
        let r32 = state.completionCalled("s", generation: 1)
        #expect(r32)
        let r33 = state.next("s", hasDelegate: false)
        #expect(r33 == .wait)
        #expect(state.phase("s") == .idle && state.pending["s"] == [event(1)])
        let r34 = state.next("s", hasDelegate: false)
        #expect(r34 == .route)
        let r35 = state.routed("s", found: true)
        #expect(r35 == .callHandler(generation: 2))
    }

    @Test("events recorded during a batch stay for the next batch, with a new handler call")
    func recordedDuringBatch() {
        var state = DeliveryState()
        state.add(event(1))
        let first = deliverBatch(&state)
        #expect(first == [event(1)])
        state.add(event(2))
        let r36 = state.completionCalled("s", generation: 1)
        #expect(r36)
        let r37 = state.next("s", hasDelegate: true)
        #expect(r37 == .acknowledge([event(1)]))
        state.acknowledged("s", succeeded: true)
        #expect(state.pending["s"] == [event(2)])
        let r38 = state.next("s", hasDelegate: true)
        #expect(r38 == .route)
        let r39 = state.routed("s", found: true)
        #expect(r39 == .callHandler(generation: 2))
        let r40 = state.next("s", hasDelegate: true)
        #expect(r40 == .recordDelivery([event(2)]))
    }

    @Test("an acknowledgement the journal refused keeps the events, to be routed again once the retry is due")
    func acknowledgementFailed() {
        var state = DeliveryState()
        state.add(event(1))
        _ = deliverBatch(&state)
        let r41 = state.completionCalled("s", generation: 1)
        #expect(r41)
        let r42 = state.next("s", hasDelegate: true)
        #expect(r42 == .acknowledge([event(1)]))
        state.acknowledged("s", succeeded: false)
        #expect(state.pending["s"] == [event(1)])
        let waiting = state.next("s", hasDelegate: true)
        #expect(waiting == .wait, "not routed again before the retry")
        state.retryDue("s")
        let r43 = state.next("s", hasDelegate: true)
        #expect(r43 == .route)
    }

    @Test("identifiers are delivered independently")
    func independentIdentifiers() {
        var state = DeliveryState()
        state.add(event(1, "a"))
        state.add(event(2, "b"))
        _ = deliverBatch(&state, "a")
        let r44 = state.next("b", hasDelegate: true)
        #expect(r44 == .route)
        #expect(state.identifiersWithEvents == ["a", "b"])
        #expect(state.allPending.map(\.eventID) == [1, 2])
    }

    @Test("retention drops the oldest beyond the limit and those too old, never in the middle of a delivery")
    func retention() {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let retention = BackgroundSessionManager.Retention(maxEventsPerSession: 2, maxAge: 3600)
        var state = DeliveryState()
        for id in Int64(1)...3 { state.add(event(id, "a")) }
        state.add(event(4, "b", recorded: 1_800_000_000 - 3601))
        state.add(event(5, "b"))
        let r45 = state.prune(now: now, retention: retention)
        #expect(r45.map(\.eventID) == [1, 4])
        #expect(state.allPending.map(\.eventID) == [2, 3, 5])
        _ = deliverBatch(&state, "a")
        state.add(event(6, "a"))
        let r46 = state.prune(now: now, retention: retention)
        #expect(r46.isEmpty, "a is being delivered")
        #expect(state.pending["a"]?.map(\.eventID) == [2, 3, 6])
        let r47 = state.prune(now: now.addingTimeInterval(3601), retention: retention)
        #expect(r47.map(\.eventID) == [5])
    }
}
