import FoundationEssentials

// The scheduler's answers: providers' timelines taken or dropped as stale, failures and their
// retries, and the follow-up reload asked for while a request was in flight.
extension TimelineScheduler {

    /// True while request `generation` of `id` is in flight: not answered, failed or timed out.
    public func isAwaiting(_ id: WidgetInstanceID, generation: UInt64) -> Bool {
        instance(id)?.inFlight?.generation == generation
    }

    /// Takes a provider's timeline for request `generation` of `id`.
    ///
    /// Entries are sorted by date; those already past collapse to the newest, which is shown at
    /// once. An empty timeline keeps the entry shown and nothing ahead of it (the old timeline's
    /// future entries belonged to the answer it replaces). The policy sets the next reload.
    public mutating func deliver(_ timeline: AnyTimeline, to id: WidgetInstanceID, generation: UInt64, now: Date) -> Delivery {
        makeUnique()
        guard let i = instance(id), let flight = i.inFlight, flight.generation == generation else { return .stale }
        i.inFlight = nil
        i.consecutiveFailures = 0
        i.lastFailure = nil
        i.backoffUntil = nil
        i.lastSuccess = now

        var changed = false
        for entry in timeline.entries {
            if let score = entry.relevance?.score, score.isFinite, score > kindMaximumRelevance[i.kind] ?? 0 {
                kindMaximumRelevance[i.kind] = score
            }
        }
        if !timeline.entries.isEmpty {
            // Stable sort: entries with equal dates keep the provider's order. Providers almost
            // always answer in order, so check first: sorting tuples of existentials is the
            // most expensive step of a delivery (see README "Performance").
            let inOrder = zip(timeline.entries, timeline.entries.dropFirst()).allSatisfy { $0.date <= $1.date }
            let sorted = inOrder ? timeline.entries : timeline.entries.enumerated().sorted {
                ($0.element.date, $0.offset) < ($1.element.date, $1.offset)
            }.map(\.element)
            let past = sorted.partitionPoint { $0.date > now }
            i.entries = past > 0 ? Array(sorted[(past - 1)...]) : sorted
            i.entryDates = i.entries.map(\.date)
            i.nextIndex = 0
            changed = advanceEntries(i, now: now)
        } else {
            i.entries = i.shown.map { [$0] } ?? []
            i.entryDates = i.entries.map(\.date)
            i.nextIndex = i.entries.count
        }

        // A policy that retries a failed fetch is a retry: free of the budget.
        let policyReason: ReloadReason = timeline.policyRetriesFailure ? .retry : .policy
        switch timeline.policy {
        case .atEnd:
            if let last = i.entries.last, last.date > now {
                scheduleSystemReload(i, at: last.date, reason: policyReason, now: now)
            } else {
                scheduleSystemReload(i, at: now + configuration.minimumReloadInterval, reason: policyReason, now: now)
            }
        case .after(let date):
            let due = date > now ? date : now + configuration.minimumReloadInterval
            scheduleSystemReload(i, at: due, reason: policyReason, now: now)
        case .never:
            i.reloadDue = nil
        }
        takeFollowUp(i, now: now)
        reschedule(id)
        return .accepted(entryChanged: changed)
    }

    /// Records that request `generation` of `id` failed; the entry shown stays.
    ///
    /// - Returns: false if the answer was stale and dropped.
    @discardableResult
    public mutating func fail(_ id: WidgetInstanceID, generation: UInt64, message: String, now: Date) -> Bool {
        makeUnique()
        guard let i = instance(id), let flight = i.inFlight, flight.generation == generation else { return false }
        i.inFlight = nil
        recordFailure(i, message: message, now: now)
        reschedule(id)
        return true
    }

    mutating func recordFailure(_ i: Instance, message: String, now: Date) {
        i.consecutiveFailures += 1
        i.lastFailure = ReloadFailure(message: message, date: now)
        let factor = Double(1 << min(i.consecutiveFailures - 1, 30))
        let ceiling = min(configuration.retryMaxDelay, configuration.retryBaseDelay * factor)
        // "Equal jitter": at least half the delay, so retries spread out but never hurry.
        let delay = ceiling / 2 + ceiling / 2 * random.nextUnit()
        i.backoffUntil = now + delay
        i.reloadDue = nil
        scheduleSystemReload(i, at: now + delay, reason: .retry, now: now)
        takeFollowUp(i, now: now)
    }

    mutating func takeFollowUp(_ i: Instance, now: Date) {
        guard let reason = i.followUp else { return }
        i.followUp = nil
        switch reason {
        case .user:
            i.backoffUntil = nil
            i.reloadDue = now
            i.reloadReason = .user
            i.heldByBudgetUntil = nil
        case .environment:
            scheduleEnvironmentReload(i, now: now)
        case .outage, .answer, .push:
            scheduleSystemReload(i, at: now, reason: reason, now: now)
        default:
            scheduleSystemReload(i, at: now, reason: .widgetCenter, now: now)
        }
    }

    /// Keeps the strongest reason of reloads asked for during a request.
    mutating func addFollowUp(_ i: Instance, _ reason: ReloadReason) {
        // The user's first; an outage's reload is the weakest: any other reload covers it.
        func rank(_ r: ReloadReason?) -> Int {
            switch r {
            case nil: 0
            case .outage?: 1
            case .push?: 2
            case .answer?: 4
            case .environment?: 5
            case .user?: 6
            default: 3
            }
        }
        if rank(reason) > rank(i.followUp) { i.followUp = reason }
    }
}

extension Array {
    /// The index of the first element for which `isAfter` is true, by binary search; the
    /// array must be partitioned (all false, then all true).
    fileprivate func partitionPoint(_ isAfter: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if isAfter(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
