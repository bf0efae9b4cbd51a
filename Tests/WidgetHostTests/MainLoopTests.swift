#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Testing
@testable import WidgetHost

@Suite("The loop's main-queue entry points")
struct MainLoopEntryPointTests {
    @Test("only an eventfd passes as Dispatch's main-queue handle; anything else refuses to start")
    func eventFDCheck() throws {
        let event = wh_eventfd()
        defer { close(event) }
        #expect(MainLoop.isEventFD(event))
        var ends: [Int32] = [-1, -1]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]); close(ends[1]) }
        #expect(!MainLoop.isEventFD(ends[0]))
        #expect(!MainLoop.isEventFD(-1))
        #expect(!MainLoop.isEventFD(987_654))
    }

    @Test("where Dispatch's main queue is already driven by dispatchMain (as in this test process) the handle is -1: the loop refuses with a clear error")
    @MainActor
    func refusesWithoutHandle() throws {
        // The running dashboard gets an eventfd here (every end-to-end test starts it); the test
        // runner's main queue is drained by dispatchMain, so the entry point answers -1.
        #expect(throws: MainLoop.LoopError.self) { _ = try MainLoop() }
        #expect("\(MainLoop.LoopError.missingDispatchRunLoopSupport)" == "this Dispatch library cannot drain its main queue in a run loop")
    }
}
