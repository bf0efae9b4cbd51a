import FoundationEssentials
import WidgetCore

/// Which member of a stack is shown, and when to look again: the Smart Stack's rule as a
/// value. The dashboard keeps one per stack panel and gives it its members' relevances
/// (`TimelineScheduler.relevance(of:now:)`, each provider's scale mapped to 0…1) whenever
/// timelines change and at `nextExpiry`, which it arms as `.armRelevanceWake`.
public struct StackRotation: Sendable, Equatable {
    /// The member shown.
    public private(set) var shown = 0
    /// The members' relevances when the user flipped by hand (`[`, `]`): the choice holds
    /// while they stay the same; the next change gives the choice back to relevance.
    public private(set) var held: [Float?]?

    public init() {}

    /// Shows the most relevant member for `relevances`, unless flipped by hand and none has
    /// changed since. While a member has not answered its first timeline yet (`answered`
    /// false: no entry, no failure), the choice waits for it: which member answers first must
    /// not decide what a stack shows at start (a slow first member would lose a tie to a
    /// fast second one). A member that fails or times out has answered.
    public mutating func update(relevances: [Float?], answered: [Bool]? = nil) {
        if let answered, answered.contains(false) { return }
        if let held {
            if held == relevances { return }
            self.held = nil
        }
        shown = Self.mostRelevant(relevances, current: shown)
    }

    /// `[` / `]`: the previous / next member (wrapping), held until a relevance changes.
    public mutating func flip(by step: Int, relevances: [Float?]) {
        let count = relevances.count
        guard count > 0 else { return }
        shown = ((shown + step) % count + count) % count
        held = relevances
    }

    /// Which of `count` is shown, for the panel's title: " 2/3".
    public func position(of count: Int) -> String { " \(shown + 1)/\(count)" }

    /// The member a stack shows for these relevances (a member without one counts as 0): the
    /// most relevant; on a tie the current one stays, else the first of the tied.
    public static func mostRelevant(_ relevances: [Float?], current: Int) -> Int {
        let scores = relevances.map { $0 ?? 0 }
        guard let best = scores.max() else { return 0 }
        if scores.indices.contains(current), scores[current] == best { return current }
        return scores.firstIndex(of: best) ?? 0
    }

    /// When the first of the members' current entries stops being relevant after `now` (its
    /// date plus its relevance's `duration`; 0 or an endless duration never ends): a change to
    /// look at even for a stack flipped by hand. Nil: none runs out.
    public static func nextExpiry(of entries: [(any TimelineEntry)?], after now: Date) -> Date? {
        var first: Date?
        for entry in entries {
            guard let entry, let relevance = entry.relevance, relevance.duration > 0, relevance.duration.isFinite else { continue }
            let end = entry.date.addingTimeInterval(relevance.duration)
            if end > now, first.map({ end < $0 }) ?? true { first = end }
        }
        return first
    }
}
