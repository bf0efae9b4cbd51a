import FoundationEssentials
import Testing
import WidgetCore

/// A plain entry for scheduler tests: a date and a label to tell entries apart.
public struct TestEntry: TimelineEntry, Equatable {
    public var date: Date
    public var label: String

    public init(date: Date, label: String) {
        self.date = date
        self.label = label
    }
}

/// The moment every simulated test starts from (2027-01-15T08:00:00Z).
public let testEpoch = Date(timeIntervalSince1970: 1_800_000_000)

/// `testEpoch` plus `seconds`.
public func at(_ seconds: TimeInterval) -> Date { testEpoch + seconds }

/// A timeline of `TestEntry` values at the given offsets from `testEpoch`, labelled by offset.
public func timeline(_ offsets: [TimeInterval], policy: TimelineReloadPolicy) -> AnyTimeline {
    Timeline(entries: offsets.map { TestEntry(date: at($0), label: "t\(Int($0))") }, policy: policy).erased
}

/// The label of the entry a status shows, or nil while only the placeholder exists.
public func shownLabel(_ status: TimelineScheduler.Status?) -> String? {
    (status?.entry as? TestEntry)?.label
}

/// Records a test failure when a manual clock still has work scheduled: a test must leave
/// nothing sleeping behind it.
public func expectNoPendingWork(_ clock: ManualClock, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(clock.pendingCount == 0, "work left scheduled on the manual clock", sourceLocation: sourceLocation)
}
