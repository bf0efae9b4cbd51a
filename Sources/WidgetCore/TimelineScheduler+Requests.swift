import FoundationEssentials

// Reloads asked for (by `WidgetCenter`, the user, the environment) and the rules that move a
// system-initiated one later: minimum interval, `WidgetCenter` burst, retry backoff, daily budget.
extension TimelineScheduler {

    /// Asks for a new timeline for `id`, as `WidgetCenter` or the user does.
    ///
    /// While a request is in flight, reloads coalesce into one follow-up. A user-initiated
    /// reload starts at the next `advance(to:)` whatever the budget or backoff; a system one
    /// waits for the minimum interval, the daily budget and any retry backoff.
    public mutating func requestReload(_ id: WidgetInstanceID, userInitiated: Bool, now: Date) {
        makeUnique()
        guard let i = instance(id) else { return }
        if i.inFlight != nil {
            addFollowUp(i, userInitiated ? .user : .widgetCenter)
        } else if userInitiated {
            i.backoffUntil = nil
            i.reloadDue = now
            i.reloadReason = .user
            i.heldByBudgetUntil = nil
        } else if i.reloadReason != .user || i.reloadDue == nil {
            scheduleSystemReload(i, at: now, reason: .widgetCenter, now: now)
        }
        reschedule(id)
    }

    /// Asks for new timelines for every instance of `kind` (system initiated unless told).
    public mutating func requestReload(ofKind kind: String, userInitiated: Bool = false, now: Date) {
        makeUnique()
        for id in instances(ofKind: kind) { requestReload(id, userInitiated: userInitiated, now: now) }
    }

    /// Asks for new timelines for every instance of `kind` for `cause`: the user's (as `r`),
    /// an answer to the user, a push, an outage (`WidgetCenter.Cause`; DESIGN.md §3: the budget
    /// follows the request).
    public mutating func requestReload(ofKind kind: String, cause: WidgetCenter.Cause, now: Date) {
        makeUnique()
        let reason: ReloadReason
        switch cause {
        case .user:
            for id in instances(ofKind: kind) { requestReload(id, userInitiated: true, now: now) }
            return
        case .answer: reason = .answer
        case .push: reason = .push
        case .outage: reason = .outage
        }
        for id in instances(ofKind: kind) {
            guard let i = instance(id) else { continue }
            if i.inFlight != nil {
                addFollowUp(i, reason)
            } else if i.reloadReason != .user || i.reloadDue == nil {
                scheduleSystemReload(i, at: now, reason: reason, now: now)
            }
            reschedule(id)
        }
    }

    /// Asks for new timelines for every instance.
    public mutating func requestReloadAll(userInitiated: Bool = false, now: Date) {
        makeUnique()
        for id in allInstances { requestReload(id, userInitiated: userInitiated, now: now) }
    }

    /// Asks for a new timeline for `id` because its environment changed (the wall clock was
    /// set, the panel's size changed), as WidgetKit does on such changes.
    ///
    /// It starts at the next `advance(to:)`, free of the minimum interval and the daily
    /// budget, but after any retry wait (it is not the user's), and as a follow-up while a
    /// request is in flight. Providers see `isUserInitiated == false`.
    public mutating func requestEnvironmentReload(_ id: WidgetInstanceID, now: Date) {
        makeUnique()
        guard let i = instance(id) else { return }
        if i.inFlight != nil {
            addFollowUp(i, .environment)
        } else {
            scheduleEnvironmentReload(i, now: now)
        }
        reschedule(id)
    }

    /// `requestEnvironmentReload` for every instance.
    public mutating func requestEnvironmentReloadAll(now: Date) {
        makeUnique()
        for id in allInstances { requestEnvironmentReload(id, now: now) }
    }

    mutating func scheduleEnvironmentReload(_ i: Instance, now: Date) {
        let due = max(now, i.backoffUntil ?? now)
        if let existing = i.reloadDue, existing <= due { return }
        i.reloadDue = due
        i.reloadReason = .environment
        i.heldByBudgetUntil = nil
    }

    /// Hides or shows an instance (its panel is on a page not shown): a hidden instance's
    /// entries wake nothing, nor do the reloads of one computed locally (`pausable: false`: a
    /// seconds clock on a hidden page costs no wake-up); fetches go on, so its data is
    /// current when shown. Shown again, its entries catch up at the next `advance(to:)`.
    public mutating func setHidden(_ id: WidgetInstanceID, _ hidden: Bool) {
        makeUnique()
        guard let i = instance(id), i.isHidden != hidden else { return }
        i.isHidden = hidden
        if !hidden {
            // What came due while hidden is due now.
            i.queuedDate = nil
            i.version &+= 1
        }
        reschedule(id)
    }

    /// Pauses or resumes reloads the system would start; user reloads still run.
    public mutating func setAutomaticReloadsPaused(_ paused: Bool) {
        makeUnique()
        guard paused != automaticReloadsPaused else { return }
        automaticReloadsPaused = paused
        for id in allInstances { reschedule(id) }
    }

    /// Schedules a system reload at `desired`, moved later as the rules require, or earlier
    /// than one already scheduled.
    mutating func scheduleSystemReload(_ i: Instance, at desired: Date, reason: ReloadReason, now: Date) {
        var due = desired
        // Each of a kind's panels whose download finishes reloads the whole kind: N panels
        // finishing together are N requests, not a widget asking in a loop.
        let burst = max(Self.centerBurst, kindCounts[i.kind] ?? 1)
        if let floor = i.history.intervalFloor(for: reason, pausable: i.pausable, now: now,
                                               minimumInterval: configuration.minimumReloadInterval, burst: burst) {
            due = max(due, floor)
        }
        if let backoff = i.backoffUntil { due = max(due, backoff) }
        var heldByBudget: Date?
        if let budget = configuration.dailyReloadBudget, countsAgainstBudget(i, reason: reason),
           let allowed = i.history.budgetFloor(budget: budget, now: now), allowed > due {
            due = allowed
            heldByBudget = allowed
        }
        if let existing = i.reloadDue, existing <= due { return }
        i.reloadDue = due
        i.reloadReason = reason
        i.heldByBudgetUntil = heldByBudget
    }

    /// Whether a reload for `reason` is counted against (and so held back by) the daily
    /// budget: only policy reloads and the system's own `WidgetCenter` reloads, of instances
    /// that do network work. What a user asked for (their reload, an action, the data either
    /// fetched), a push, a retry, an outage and the environment never are: the exemption
    /// follows the request, not a window of time after a key.
    func countsAgainstBudget(_ i: Instance, reason: ReloadReason) -> Bool {
        guard i.pausable else { return false }
        switch reason {
        case .policy, .widgetCenter: return true
        case .initial, .user, .retry, .environment, .outage, .answer, .push: return false
        }
    }
}
