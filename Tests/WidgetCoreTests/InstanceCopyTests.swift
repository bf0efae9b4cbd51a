import FoundationEssentials
import Testing
@testable import WidgetCore
import WidgetTestSupport

@Suite("Timelines are values: a record's copy")
struct InstanceCopyTests {
    @Test("Instance.copy() copies every stored property (a property added later must be set here, then copied)")
    func copiesEveryProperty() {
        typealias Instance = TimelineScheduler.Instance
        let record = Instance(kind: "board", pausable: false)
        record.entries = [TestEntry(date: at(1), label: "one")]
        record.entryDates = [at(1)]
        record.nextIndex = 1
        record.shown = TestEntry(date: at(1), label: "one")
        record.reloadDue = at(2)
        record.reloadReason = .widgetCenter
        record.inFlight = TimelineScheduler.InFlight(generation: 3, deadline: at(4), isUserInitiated: true)
        record.followUp = .user
        record.generation = 5
        record.history.recordStart(.widgetCenter, budgeted: true, now: at(6), minimumInterval: 5)
        record.backoffUntil = at(7)
        record.heldByBudgetUntil = at(8)
        record.consecutiveFailures = 9
        record.lastFailure = ReloadFailure(message: "down", date: at(10))
        record.lastSuccess = at(11)
        record.version = 13
        record.queuedDate = at(14)
        record.requestTimeout = 15
        record.isHidden = true

        func values(_ instance: Instance) -> [String: String] {
            Dictionary(uniqueKeysWithValues: Mirror(reflecting: instance).children.map { ($0.label ?? "?", String(describing: $0.value)) })
        }
        let untouched = values(Instance(kind: "other", pausable: true))
        let set = values(record)
        for (name, value) in set {
            #expect(value != untouched[name], "the test leaves \(name) at its default: set it above, so its copy is checked")
        }
        #expect(values(record.copy()) == set)
        #expect(record.copy() !== record)
    }
}
