import FoundationEssentials

/// When one instance's reloads started, and the earliest the rate limits let the next
/// system-initiated one start: the minimum interval, the `WidgetCenter` burst, the daily budget.
///
/// Part of `TimelineScheduler`'s record of an instance; which reloads count against the budget
/// is the scheduler's decision (it passes `budgeted`). Dates only, no clock.
struct ReloadHistory {
    /// The start of the last reload of any kind.
    private(set) var lastStart: Date?
    /// Starts of the `WidgetCenter` reloads within the last minimum interval (a burst of
    /// `TimelineScheduler.centerBurst` is allowed, then one per interval).
    private(set) var recentCenterStarts: [Date] = []
    /// When the user last reloaded this instance: the data that reload fetches comes back as
    /// `WidgetCenter` reloads, which then answer the user and are not held back.
    private(set) var lastUserStart: Date?
    /// Starts of the reloads counted against the daily budget within the last 24 hours.
    private(set) var budgetedStarts: [Date] = []
    /// The start of the last push reload (the push budget: one per `TimelineScheduler.pushInterval`).
    private(set) var lastPushStart: Date?

    /// Records a reload for `reason` starting at `now`.
    mutating func recordStart(_ reason: ReloadReason, budgeted: Bool, now: Date, minimumInterval: TimeInterval) {
        if budgeted {
            budgetedStarts.removeAll { $0 <= now - 86_400 }
            budgetedStarts.append(now)
        }
        lastStart = now
        if reason == .user { lastUserStart = now }
        if reason == .push { lastPushStart = now }
        if reason == .widgetCenter || reason == .outage {
            recentCenterStarts.removeAll { $0 <= now - minimumInterval }
            recentCenterStarts.append(now)
        }
    }

    /// Moves every start by `step` seconds: the wall clock was set (`TimelineScheduler.rebase`).
    mutating func shift(by step: TimeInterval) {
        lastStart = lastStart.map { $0 + step }
        recentCenterStarts = recentCenterStarts.map { $0 + step }
        lastUserStart = lastUserStart.map { $0 + step }
        budgetedStarts = budgetedStarts.map { $0 + step }
        lastPushStart = lastPushStart.map { $0 + step }
    }

    /// The earliest a system reload for `reason` may start by the minimum interval (or the
    /// `WidgetCenter` burst); nil when nothing holds it back.
    ///
    /// - Parameter pausable: false for an instance computed locally, held only to
    ///   `TimelineScheduler.localReloadFloor`.
    func intervalFloor(for reason: ReloadReason, pausable: Bool, now: Date, minimumInterval: TimeInterval,
                       burst: Int = TimelineScheduler.centerBurst) -> Date? {
        // The user is waiting for an answer; a push has its own rate.
        if reason == .answer { return nil }
        if reason == .push { return lastPushStart.map { $0 + TimelineScheduler.pushInterval } }
        if reason == .widgetCenter || reason == .outage {
            // Data a background session just delivered should show at once, even right after
            // the reload that fetched it, and several sessions may finish together: a burst
            // of `burst` WidgetCenter reloads per interval is allowed (`centerBurst`, or the
            // kind's number of panels when more), so a widget asking in a loop is still held
            // to one per interval.
            let recent = recentCenterStarts.filter { $0 > now - minimumInterval }
            let answersUser = lastUserStart.map { $0 > now - minimumInterval } ?? false
            guard recent.count >= burst && !answersUser else { return nil }
            return recent[recent.count - burst] + minimumInterval
        }
        // The minimum interval spares servers; an instance computed locally (a system
        // monitor every 2 s) only has to be kept from spinning.
        return lastStart.map { $0 + (pausable ? minimumInterval : TimelineScheduler.localReloadFloor) }
    }

    /// The earliest a budgeted reload may start when `budget` of them already started in the
    /// last 24 hours; nil while the budget has room.
    func budgetFloor(budget: Int, now: Date) -> Date? {
        let recent = budgetedStarts.filter { $0 > now - 86_400 }
        guard recent.count >= budget else { return nil }
        return recent[recent.count - budget] + 86_400
    }
}
