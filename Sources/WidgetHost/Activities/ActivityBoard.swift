import FoundationEssentials

/// The dashboard's Live Activities, newest first: what a request does to them, when the
/// ended ones leave and when the next one turns stale. A value with the time passed in
/// (STYLE.md §3), part of the `Dashboard`; tested in simulated time.
struct ActivityBoard: Equatable, Sendable {
    /// At most this many at once (DESIGN.md §11).
    static let maximumCount = 64
    /// How long an ended one stays by default.
    static let defaultDismissAfter: TimeInterval = 300

    /// Why a valid request cannot be applied now (no such activity, too many): said to the user.
    struct Refusal: Error, Equatable, CustomStringConvertible {
        var description: String
    }

    private(set) var activities: [Activity] = []

    init(_ activities: [Activity] = []) {
        self.activities = Array(activities.sorted { $0.started > $1.started }.prefix(Self.maximumCount))
    }

    subscript(id: String) -> Activity? { activities.first { $0.id == id } }

    /// Applies a `validated()` request at `now`: the activity as it is now, and the event it
    /// records (a start, an end; an update records none).
    ///
    /// A start with an ID in use starts it again; when 64 are shown, a start makes room by
    /// removing the oldest ended one, and is refused when all 64 are running.
    mutating func apply(_ request: ActivityRequest, at now: Date) throws(Refusal) -> (activity: Activity, event: HistoryEvent?) {
        let index = activities.firstIndex { $0.id == request.id }
        switch request.action {
        case .start:
            if let index { activities.remove(at: index) }
            if activities.count >= Self.maximumCount {
                guard let oldestEnded = activities.lastIndex(where: \.isEnded) else {
                    throw Refusal(description: "\(Self.maximumCount) activities are running: end one first")
                }
                activities.remove(at: oldestEnded)
            }
            let activity = Activity(id: request.id, title: request.title ?? request.id, detail: request.detail.flatMap { $0.isEmpty ? nil : $0 },
                                    progress: request.progress, started: now, updated: now, staleAfter: request.staleAfter)
            activities.insert(activity, at: 0)
            return (activity, .activity(activity, at: now))
        case .update, .end:
            guard let index else { throw Refusal(description: "no activity '\(request.id)' (start it first: activity start \(request.id) --title …)") }
            guard !activities[index].isEnded else { throw Refusal(description: "activity '\(request.id)' has ended") }
            var activity = activities[index]
            if let title = request.title { activity.title = title }
            if let detail = request.detail { activity.detail = detail.isEmpty ? nil : detail }
            if let progress = request.progress { activity.progress = progress }
            if let staleAfter = request.staleAfter { activity.staleAfter = staleAfter }
            activity.updated = now
            if request.action == .end {
                activity.state = request.state ?? .success
                activity.dismissAfter = request.dismissAfter
                if activity.state == .success, activity.progress != nil { activity.progress = 1 }
            }
            activities[index] = activity
            return (activity, request.action == .end ? .activity(activity, at: now) : nil)
        }
    }

    /// Removes the ended ones whose time is up; true when one went.
    mutating func removeDismissed(at now: Date) -> Bool {
        let before = activities.count
        activities.removeAll { $0.dismissDate.map { $0 <= now } ?? false }
        return activities.count != before
    }

    /// The next moment the board looks different on its own: an ended one leaves, an active
    /// one turns stale. Nil: nothing will (no timer is armed).
    func nextChange(after now: Date) -> Date? {
        activities.compactMap { activity -> Date? in
            if let dismiss = activity.dismissDate { return dismiss }
            return activity.staleDate.flatMap { $0 > now ? $0 : nil }
        }.min()
    }

    /// Newest first, the running ones before the ended (the status bar's order).
    var running: [Activity] { activities.filter { !$0.isEnded } }
}
