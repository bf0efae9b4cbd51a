import FoundationEssentials

extension TimelineScheduler {
    /// A timeline request sent and not yet answered.
    struct InFlight {
        var generation: UInt64
        var deadline: Date
        var isUserInitiated: Bool
    }

    /// One instance's record; a class so the hot path changes it in place (no copy out and back).
    /// `copy()` must copy every stored property (`TimelineSchedulerTests.copiesAreIndependent`).
    final class Instance {
        let kind: String
        /// Sorted entries of the current timeline; `entries[..<nextIndex]` have come.
        var entries: [any TimelineEntry] = []
        /// `entries`' dates, read on every event without a protocol call.
        var entryDates: [Date] = []
        var nextIndex = 0
        var shown: (any TimelineEntry)?
        var reloadDue: Date?
        var reloadReason: ReloadReason = .initial
        var inFlight: InFlight?
        /// A reload asked for while one was in flight: the strongest reason asked
        /// (user, then environment, then `WidgetCenter`).
        var followUp: ReloadReason?
        var generation: UInt64 = 0
        /// When past reloads started: what the minimum interval, the `WidgetCenter` burst and
        /// the daily budget are measured against.
        var history = ReloadHistory()
        var backoffUntil: Date?
        /// When the budget moved `reloadDue` later: that date.
        var heldByBudgetUntil: Date?
        var consecutiveFailures = 0
        var lastFailure: ReloadFailure?
        var lastSuccess: Date?
        /// Bumped whenever the instance's deadline changes; older queue items are stale.
        var version: UInt64 = 0
        var queuedDate: Date?

        /// False for widgets whose timelines are computed locally (a clock): pausing automatic
        /// reloads and the daily budget, which are about network work, must not stop them.
        let pausable: Bool

        /// How long a call may take before it times out (see `add(kind:now:pausable:requestTimeout:)`).
        var requestTimeout: TimeInterval = 30
        /// On a page not shown: its entries wake nothing (they are caught up when it is shown),
        /// and, computed locally, neither do its reloads (`setHidden`).
        var isHidden = false

        init(kind: String, pausable: Bool) {
            self.kind = kind
            self.pausable = pausable
        }

        /// A record of its own with the same values (a copied scheduler's first change).
        func copy() -> Instance {
            let c = Instance(kind: kind, pausable: pausable)
            c.entries = entries
            c.entryDates = entryDates
            c.nextIndex = nextIndex
            c.shown = shown
            c.reloadDue = reloadDue
            c.reloadReason = reloadReason
            c.inFlight = inFlight
            c.followUp = followUp
            c.generation = generation
            c.history = history
            c.backoffUntil = backoffUntil
            c.heldByBudgetUntil = heldByBudgetUntil
            c.consecutiveFailures = consecutiveFailures
            c.lastFailure = lastFailure
            c.lastSuccess = lastSuccess
            c.version = version
            c.queuedDate = queuedDate
            c.requestTimeout = requestTimeout
            c.isHidden = isHidden
            return c
        }
    }
}
