import FoundationEssentials

// A step of the wall clock (an NTP step, a user setting the time, a resumed VM).
extension TimelineScheduler {

    /// The wall clock was set by `step` seconds (negative: back): moves the scheduler's own
    /// bookkeeping with it, so it keeps measuring from when things really happened — the
    /// reload history (minimum interval, `WidgetCenter` burst, daily budget), retry waits, a
    /// request's timeout and the ages panels show. Without it, after a
    /// step back of an hour a failing widget would wait an hour more than its backoff, and the
    /// budget's starts would count for a day and an hour.
    ///
    /// Entries keep their dates (they say when content is true, in wall time), and so does a
    /// policy's reload date. The host then asks every widget again (`requestEnvironmentReloadAll`).
    public mutating func rebase(by step: TimeInterval) {
        guard step != 0, step.isFinite else { return }
        makeUnique()
        func moved(_ date: Date?) -> Date? { date.map { $0 + step } }
        for case let i? in slots {
            i.history.shift(by: step)
            i.backoffUntil = moved(i.backoffUntil)
            // A policy's own date is wall time; every other due date was measured from a start,
            // a failure or the budget's history.
            if i.reloadReason != .policy || i.heldByBudgetUntil != nil { i.reloadDue = moved(i.reloadDue) }
            i.heldByBudgetUntil = moved(i.heldByBudgetUntil)
            i.inFlight?.deadline += step
            i.lastFailure?.date += step
            i.lastSuccess = moved(i.lastSuccess)
        }
        for id in allInstances { reschedule(id) }
    }
}
