/// The transport's admission per host (`scheme://host:port`): at most `limit` transfers run
/// at once per host; the others wait in arrival order and start as slots free. Pure (the
/// network thread owns one; items are its transfers, compared by identity).
struct HostQueue<Item: AnyObject> {
    let limit: Int
    private(set) var active: [String: Int] = [:]
    private(set) var queued: [String: [Item]] = [:]

    init(limit: Int) { self.limit = limit }

    /// True: a slot of `host` is taken for `item`, which starts now. False: it waits its turn.
    mutating func admit(_ item: Item, host: String) -> Bool {
        if active[host, default: 0] < limit {
            active[host, default: 0] += 1
            return true
        }
        queued[host, default: []].append(item)
        return false
    }

    /// A running item of `host` ended: its slot goes to the oldest waiting item, returned (to
    /// start now), or is freed.
    mutating func release(host: String) -> Item? {
        active[host, default: 1] -= 1
        guard var waiting = queued[host], !waiting.isEmpty else { return nil }
        let next = waiting.removeFirst()
        queued[host] = waiting
        active[host, default: 0] += 1
        return next
    }

    /// Takes a waiting item out of the queue (cancelled); a running one is not affected.
    mutating func remove(_ item: Item, host: String) {
        queued[host]?.removeAll { $0 === item }
    }

    /// Takes the waiting items `isExpired` says are past their time out of the queue.
    mutating func removeExpired(_ isExpired: (Item) -> Bool) -> [Item] {
        var expired: [Item] = []
        for (host, waiting) in queued {
            let gone = waiting.filter(isExpired)
            guard !gone.isEmpty else { continue }
            queued[host] = waiting.filter { item in !gone.contains { $0 === item } }
            expired += gone
        }
        return expired
    }

    /// Every waiting item.
    var allQueued: [Item] { queued.values.flatMap { $0 } }
}
