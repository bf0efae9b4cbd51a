#if canImport(Glibc)
import Glibc
#endif
@testable import Extensions
import Synchronization
import Testing
import WidgetTestSupport

/// The extension host's threads are started the host's way: each has an alternate signal
/// stack, so an overflow on it still reaches the handler that gives the terminal back.
@Suite("Extension host threads")
struct ExtensionThreadTests {
    @Test("a thread DetachedThread starts has an alternate signal stack and its name")
    func alternateStack() async {
        let seen = Mutex<(stack: Bool, name: String)?>(nil)
        #expect(DetachedThread.start(name: "wh-ext-test") {
            var current = stack_t()
            let has = sigaltstack(nil, &current) == 0 && Int(current.ss_flags) & Int(SS_DISABLE) == 0 && current.ss_sp != nil
            let name = (try? FileContents.bytes(at: "/proc/thread-self/comm")).map { String(decoding: $0, as: UTF8.self) } ?? ""
            seen.withLock { $0 = (has, name) }
        })
        #expect(await eventually { seen.withLock { $0 } != nil })
        #expect(seen.withLock { $0?.stack } == true)
        #expect(seen.withLock { $0?.name } == "wh-ext-test\n")
    }
}
