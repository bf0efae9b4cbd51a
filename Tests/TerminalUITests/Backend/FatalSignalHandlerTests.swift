import CNcurses
#if canImport(Glibc)
import Glibc
#endif
import Testing

// The install/uninstall half of CNcurses `restore.h`, in this process, with no terminal: what
// the handlers do when a signal comes is tested end to end (FatalSignalEndToEndTests). This
// module gets its own copy of the header's static state, separate from TerminalUI's.

/// The handler address of `signal`'s disposition (SIG_DFL is 0, SIG_IGN is 1).
private func disposition(_ signal: Int32) -> Int {
    var action = sigaction()
    sigaction(signal, nil, &action)
    return unsafeBitCast(action.__sigaction_handler.sa_handler, to: Int.self)
}

private func alternateStack() -> stack_t {
    var stack = stack_t()
    sigaltstack(nil, &stack)
    return stack
}

@Suite("fatal-signal handlers: install and uninstall", .serialized)
struct FatalSignalHandlerTests {
    @Test("install takes the fatal signals, leaves ignored ones, others' handlers and the loop's; uninstall puts all back")
    func installThenUninstall() {
        // An ignored signal (as under nohup) and a handler someone installed on purpose.
        let ignored = SIGXFSZ, owned = SIGVTALRM
        let oldIgnored = signal(ignored, SIG_IGN)
        let oldOwned = signal(owned) { _ in }
        defer {
            signal(ignored, oldIgnored)
            signal(owned, oldOwned)
        }
        let taken = [SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV, SIGUSR1, SIGUSR2, SIGALRM]
        let untouched = [ignored, owned, SIGWINCH, SIGTERM, SIGINT, SIGHUP, SIGTSTP, SIGPIPE, SIGCHLD, SIGCONT]
        let all = taken + untouched
        let before = all.map(disposition)
        let stackBefore = alternateStack()

        wh_restore_save_termios(-1)  // no terminal: nothing to write, nothing to restore
        let count = wh_restore_install()
        let installed = all.map(disposition)
        let handler = installed[0]
        #expect(count >= taken.count)
        #expect(handler > 1, "SIGQUIT still has its old disposition")
        for (index, signal) in taken.enumerated() {
            #expect(installed[index] == handler, "signal \(signal) was not taken over")
        }
        for (index, signal) in untouched.enumerated() {
            #expect(installed[taken.count + index] == before[taken.count + index], "signal \(signal) was changed")
        }
        // A thread without an alternate stack gets one, for stack overflows.
        #expect(alternateStack().ss_flags & Int32(SS_DISABLE) == 0)

        wh_restore_uninstall()
        #expect(all.map(disposition) == before, "dispositions after uninstall differ from before install")
        let stackAfter = alternateStack()
        #expect(stackAfter.ss_sp == stackBefore.ss_sp && stackAfter.ss_flags == stackBefore.ss_flags)
    }
}
