/// The push budget of one event stream: how often its events may reload widgets.
///
/// At most one reload per `spacing` (1 s by default). An event within `spacing` of the last
/// reload is not dropped but collapsed: it makes one reload due at the end of the spacing,
/// which any number of further events join. So a flood of any rate costs one reload in flight
/// plus one queued — at most one a second — and the last event is never lost. A pure value:
/// the caller passes the time and arms a one-shot wake-up at `queuedAt`.
public struct PushBudget: Sendable, Equatable {
    public let spacing: Duration
    public private(set) var lastReload: ContinuousClock.Instant?
    /// When the collapsed reload is due, if one is queued.
    public private(set) var queuedAt: ContinuousClock.Instant?

    public init(spacing: Duration = .seconds(1)) {
        self.spacing = spacing
    }

    /// An event arrived at `now`: true if it reloads now; false if it is queued (or joins the
    /// reload already queued).
    public mutating func eventArrived(at now: ContinuousClock.Instant) -> Bool {
        if queuedAt != nil { return false }
        if let lastReload, now < lastReload + spacing {
            queuedAt = lastReload + spacing
            return false
        }
        lastReload = now
        return true
    }

    /// True (once) when the queued reload is due at `now`: the caller reloads then.
    public mutating func takeDue(at now: ContinuousClock.Instant) -> Bool {
        guard let queuedAt, queuedAt <= now else { return false }
        self.queuedAt = nil
        lastReload = now
        return true
    }
}
