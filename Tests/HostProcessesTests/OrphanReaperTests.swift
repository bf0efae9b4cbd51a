#if canImport(Glibc)
import Glibc
#endif
@testable import HostProcesses
import Testing

/// The parts of `OrphanReaper` a test process can run: it never makes itself a subreaper (its
/// children are the harness's too), so `collect` must leave every child alone here.
@Suite("OrphanReaper without adopt()")
struct OrphanReaperTests {
    @Test("children() lists a spawned child; isAlive follows it to its end; collect() kills nothing in a process that did not adopt")
    func childrenAndAliveness() throws {
        let spawner = ProcessSpawner()
        let child = try spawner.spawn(["/bin/sleep", "30"], standardOutput: .null, standardError: .null)
        defer {
            child.signalGroup(SIGKILL)
            while spawner.runningCount > 0 { spawner.reapExited(); usleep(1_000) }
        }
        #expect(OrphanReaper.children().contains(child.pid))
        #expect(OrphanReaper.isAlive(child.pid))
        #expect(!OrphanReaper.isAdopted)
        #expect(OrphanReaper.collect().isEmpty)
        #expect(OrphanReaper.killAll() == 0)
        #expect(OrphanReaper.isAlive(child.pid), "a process that did not adopt kills nothing")
        child.signalGroup(SIGKILL)
        var zombie = false
        for _ in 0..<2000 where !zombie {  // SIGKILL is delivered asynchronously
            zombie = !OrphanReaper.isAlive(child.pid)
            if !zombie { usleep(1_000) }
        }
        #expect(zombie, "a killed child not yet reaped (a zombie) has ended")
        #expect(spawner.reapExited().map(\.1) == [.signalled(SIGKILL)], "its status is still the spawner's to take")
    }
}
