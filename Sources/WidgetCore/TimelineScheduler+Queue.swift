import FoundationEssentials

// One deadline per instance in the `DeadlineQueue`, keyed by (date, insertion order); a
// superseded deadline stays queued under an old version and is skipped lazily.
extension TimelineScheduler {

    /// Puts the instance's next deadline in the queue, superseding its previous one.
    mutating func reschedule(_ id: WidgetInstanceID) {
        guard let i = instance(id), requeue(id, i) else { return }
        compactIfNeeded()
        dropStaleHead()
    }

    /// Pushes the next deadline of `i` (not yet written back) if it changed; true if it did.
    @discardableResult
    mutating func requeue(_ id: WidgetInstanceID, _ i: Instance) -> Bool {
        var next: Date?
        func consider(_ d: Date?) { if let d, next.map({ d < $0 }) ?? true { next = d } }
        // A hidden instance's entries wait until it is shown; so do the reloads of one computed
        // locally (a clock) after its first: nobody would see them. A fetch still runs, so data
        // is current.
        if !i.isHidden, i.nextIndex < i.entryDates.count { consider(i.entryDates[i.nextIndex]) }
        consider(i.inFlight?.deadline)
        if i.inFlight == nil, mayStart(i), !(i.isHidden && !i.pausable && i.reloadReason != .initial) { consider(i.reloadDue) }
        guard next != i.queuedDate else { return false }
        i.version &+= 1
        i.queuedDate = next
        if let next { queue.push((id, i.version), at: next) }
        return true
    }

    mutating func compactIfNeeded() {
        guard queue.count > 64, queue.count > 2 * liveCount else { return }
        let slots = slots
        queue.retain { item in
            let index = item.value.id.rawValue - 1
            return index < slots.count && slots[index]?.version == item.value.version
        }
    }

    /// Pops superseded items at the head so `nextWakeDate` is always a real deadline.
    mutating func dropStaleHead() {
        while let top = queue.first, instance(top.value.id)?.version != top.value.version {
            queue.popFirst()
        }
    }
}
