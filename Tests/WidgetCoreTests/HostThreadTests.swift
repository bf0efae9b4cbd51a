#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport

/// `HostThread`, the one way the host starts a thread: its name and an alternate
/// signal stack while it runs (a stack overflow then still reaches the terminal restore).
@Suite("Host threads")
struct HostThreadTests {
    /// What a thread saw of itself.
    struct Seen: Sendable, Equatable {
        var alternateStack: Bool
        var name: String
    }

    static func look() -> Seen {
        let name = (try? FileContents.bytes(at: "/proc/thread-self/comm")).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return Seen(alternateStack: HostThread.hasAlternateStack, name: name)
    }

    @Test("a thread started the host's way has its name and an alternate signal stack")
    func started() async throws {
        let seen = Mutex<Seen?>(nil)
        let thread = try HostThread.start(name: "wh-test-thread", stackSize: 512 * 1024, detached: false) {
            seen.withLock { $0 = Self.look() }
        }.get()
        pthread_join(thread, nil)
        #expect(seen.withLock { $0 } == Seen(alternateStack: true, name: "wh-test-thread\n"))
    }

    @Test("a ThreadTaskExecutor's threads are host threads: named, with an alternate signal stack")
    func executorThreads() async {
        let executor = ThreadTaskExecutor(maximumThreads: 1, name: "wh-test-pool", stackSize: 768 * 1024)
        let seen = await Task(executorPreference: executor) { Self.look() }.value
        #expect(seen == Seen(alternateStack: true, name: "wh-test-pool\n"))
    }

    @Test("a thread the executor cannot start (no memory for its stack here; the process limit in life) is counted, not a crash of the host")
    func threadThatCannotStart() {
        // A stack no machine can map: pthread_create fails.
        let executor = ThreadTaskExecutor(maximumThreads: 1, name: "wh-test-none", stackSize: 1 << 50)
        let job = Task(executorPreference: executor) { 1 }
        #expect(executor.failedThreadStarts == 1)
        #expect(executor.startedThreads == 0)
        job.cancel()
    }
}
