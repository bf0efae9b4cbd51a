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

    /// Asks for new timelines for every instance of `kind` after its fetch failed: a
    /// `WidgetCenter` reload that spends no budget (`ReloadReason.outage`).
    public mutating func requestOutageReload(ofKind kind: String, now: Date) {
        makeUnique()
        for id in instances(ofKind: kind) {
            guard let i = instance(id) else { continue }
            if i.inFlight != nil {
                addFollowUp(i, .outage)
            } else if i.reloadReason != .user || i.reloadDue == nil {
                scheduleSystemReload(i, at: now, reason: .outage, now: now)
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
        if let budget = configuration.dailyReloadBudget, countsAgainstBudget(i, reason: reason, now: now),
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
    /// budget: only policy reloads and `WidgetCenter` reloads that do not answer a user
    /// reload, of instances that do network work.
    func countsAgainstBudget(_ i: Instance, reason: ReloadReason, now: Date) -> Bool {
        guard i.pausable else { return false }
        switch reason {
        case .policy: return true
        case .widgetCenter: return !answersUser(now: now)
        case .initial, .user, .retry, .environment, .outage: return false
        }
    }

    /// True within `userAnswerWindow` of the last user reload of any instance: a
    /// `WidgetCenter` reload then brings data the user asked for (the leaderboard's board,
    /// and the hero cards that read it).
    private func answersUser(now: Date) -> Bool {
        guard let last = lastUserReloadAnywhere else { return false }
        return now >= last && now.timeIntervalSince(last) <= configuration.userAnswerWindow
    }
}
