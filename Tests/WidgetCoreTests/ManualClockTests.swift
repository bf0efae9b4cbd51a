import FoundationEssentials
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

@Suite("ManualClock")
struct ManualClockTests {
    @Test("runs due actions in order of date, then of scheduling, with now at each date")
    func order() {
        let clock = ManualClock(now: testEpoch)
        let log = Mutex<[String]>([])
        _ = clock.schedule(at: at(20)) { log.withLock { $0.append("b@\(Int(clock.now.timeIntervalSince(testEpoch)))") } }
        _ = clock.schedule(at: at(10)) { log.withLock { $0.append("a@\(Int(clock.now.timeIntervalSince(testEpoch)))") } }
        _ = clock.schedule(at: at(20)) { log.withLock { $0.append("c") } }
        _ = clock.schedule(at: at(31)) { log.withLock { $0.append("late") } }
        clock.advance(by: 30)
        #expect(log.withLock { $0 } == ["a@10", "b@20", "c"])
        #expect(clock.now == at(30))
        #expect(clock.pendingCount == 1)
        clock.advance(by: 1)
        expectNoPendingWork(clock)
    }

    @Test("a cancelled action never runs; an action may schedule another within the same advance")
    func cancelAndChain() {
        let clock = ManualClock(now: testEpoch)
        let log = Mutex<[String]>([])
        let timer = clock.schedule(at: at(5)) { log.withLock { $0.append("cancelled") } }
        _ = clock.schedule(at: at(5)) {
            log.withLock { $0.append("first") }
            _ = clock.schedule(at: at(8)) { log.withLock { $0.append("second") } }
        }
        timer.cancel()
        clock.advance(to: at(10))
        #expect(log.withLock { $0 } == ["first", "second"])
        expectNoPendingWork(clock)
    }

    @Test("time never goes backwards")
    func monotonic() {
        let clock = ManualClock(now: at(100))
        clock.advance(to: at(50))
        #expect(clock.now == at(100))
    }
}
