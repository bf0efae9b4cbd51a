import Synchronization
import Testing
import WidgetCore

@Suite("WidgetCenter")
struct WidgetCenterTests {
    @Test("requests from many threads reach the host once each, with one wake-up per batch")
    func coalescesAndWakesOnce() async {
        let center = WidgetCenter()
        let wakes = Mutex(0)
        center.connect { wakes.withLock { $0 += 1 } }
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<100 {
                group.addTask { center.reloadTimelines(ofKind: i.isMultiple(of: 2) ? "clock" : "leaderboard") }
            }
        }
        #expect(Set(center.takeRequests()) == [.kind("clock"), .kind("leaderboard")])
        #expect(wakes.withLock { $0 } == 1)
        #expect(center.takeRequests().isEmpty)
    }

    @Test("reloadAllTimelines supersedes kind requests in the same batch")
    func allSupersedes() {
        let center = WidgetCenter()
        center.reloadTimelines(ofKind: "clock")
        center.reloadAllTimelines()
        center.reloadTimelines(ofKind: "hero")
        #expect(center.takeRequests() == [.all])
    }

    @Test("a host that connects late is woken for requests made before")
    func lateConnect() {
        let center = WidgetCenter()
        center.reloadTimelines(ofKind: "clock")
        let woke = Mutex(false)
        center.connect { woke.withLock { $0 = true } }
        #expect(woke.withLock { $0 })
    }

    @Test("currentConfigurations reports what the host published")
    func configurations() {
        let center = WidgetCenter()
        let info = WidgetCenter.WidgetInfo(kind: "clock", family: .small, title: "Clock")
        center.publish([info])
        #expect(center.currentConfigurations() == [info])
    }
}
