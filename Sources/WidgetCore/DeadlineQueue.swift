import FoundationEssentials

/// A binary min-heap of wake-ups keyed by (date, insertion order).
///
/// Ties on the date keep insertion order, so equal deadlines are served first-in first-out
/// and runs are reproducible. Push and pop cost O(log n).
struct DeadlineQueue<Value> {
    struct Item {
        var date: Date
        var sequence: UInt64
        var value: Value
    }

    private(set) var items: [Item] = []
    private var nextSequence: UInt64 = 0

    var count: Int { items.count }
    var isEmpty: Bool { items.isEmpty }
    var first: Item? { items.first }

    mutating func push(_ value: Value, at date: Date) {
        nextSequence &+= 1
        items.append(Item(date: date, sequence: nextSequence, value: value))
        siftUp(items.count - 1)
    }

    @discardableResult
    mutating func popFirst() -> Item? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let top = items.removeLast()
        if !items.isEmpty { siftDown(0) }
        return top
    }

    /// Keeps only the items for which `isLive` is true, then restores the heap in O(n).
    mutating func retain(where isLive: (Item) -> Bool) {
        items.removeAll { !isLive($0) }
        var i = items.count / 2 - 1
        while i >= 0 {
            siftDown(i)
            i -= 1
        }
    }

    private static func precedes(_ a: Item, _ b: Item) -> Bool {
        a.date < b.date || (a.date == b.date && a.sequence < b.sequence)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.precedes(items[child], items[parent]) else { return }
            items.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        let n = items.count
        while true {
            let left = 2 * parent + 1
            guard left < n else { return }
            var smallest = left
            let right = left + 1
            if right < n, Self.precedes(items[right], items[left]) { smallest = right }
            guard Self.precedes(items[smallest], items[parent]) else { return }
            items.swapAt(smallest, parent)
            parent = smallest
        }
    }
}
