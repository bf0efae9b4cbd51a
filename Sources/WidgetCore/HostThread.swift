#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// The one way the host starts a thread: a name, an explicit stack size, and an alternate
/// signal stack for as long as the thread runs.
///
/// Why the alternate stack: a stack overflow raises SIGSEGV on a stack that has no room left,
/// so the handler that gives the terminal back (CNcurses/restore.h, installed with
/// SA_ONSTACK) can only run on a stack of its own. Only the main thread gets one from the
/// Swift runtime; without one the kernel kills the process at once and the terminal stays raw.
///
/// Lives in WidgetCore (which imports only CLinux, a header of system calls) because every module that
/// starts threads already depends on it, and the leaderboard server is given it for the same
/// reason. Dispatch's threads are not ours to start: only shallow work runs on them (see
/// ARCHITECTURE.md "Threads"), and a crash that is not an overflow reaches the handler on the
/// thread's own stack.
public enum HostThread {
    /// The alternate signal stack each host thread gets: room for the terminal restore and the
    /// Swift runtime's crash handler it hands over to (the main thread's is the same size).
    public static let alternateStackSize = 64 * 1024

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a thread named `name` (at most 15 bytes are kept) with a stack of `stackSize`
    /// bytes, running `body` with an alternate signal stack that is freed when it returns.
    ///
    /// - Parameter detached: false for a thread the caller joins (`pthread_join`).
    /// - Returns: the thread, or the `pthread_create` error number.
    public static func start(name: String, stackSize: Int, detached: Bool = true,
                             _ body: @escaping @Sendable () -> Void) -> Result<pthread_t, HostThreadError> {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN)))
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, &attributes, { raw in
            let start = Unmanaged<Start>.fromOpaque(raw!).takeRetainedValue()
            HostThread.setName(start.name)
            let stack = HostThread.installAlternateStack()
            start.body()
            if let stack { HostThread.removeAlternateStack(stack) }
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            return .failure(HostThreadError(code: result))
        }
        return .success(thread)
    }

    /// Whether the calling thread has an alternate signal stack (for tests and checks).
    public static var hasAlternateStack: Bool {
        var current = stack_t()
        guard sigaltstack(nil, &current) == 0 else { return false }
        return Int(current.ss_flags) & Int(SS_DISABLE) == 0 && current.ss_sp != nil
    }

    /// Maps and installs an alternate stack; nil when the thread has one already or none can be made.
    private static func installAlternateStack() -> UnsafeMutableRawBufferPointer? {
        guard !hasAlternateStack else { return nil }
        guard let memory = mmap(nil, alternateStackSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              memory != MAP_FAILED else { return nil }
        var stack = stack_t(ss_sp: memory, ss_flags: 0, ss_size: alternateStackSize)
        guard sigaltstack(&stack, nil) == 0 else {
            munmap(memory, alternateStackSize)
            return nil
        }
        return UnsafeMutableRawBufferPointer(start: memory, count: alternateStackSize)
    }

    /// Turns the alternate stack off and unmaps it, if it is still the thread's and not in use.
    private static func removeAlternateStack(_ stack: UnsafeMutableRawBufferPointer) {
        var current = stack_t()
        guard sigaltstack(nil, &current) == 0, current.ss_sp == stack.baseAddress,
              Int(current.ss_flags) & Int(SS_ONSTACK) == 0 else { return }
        var off = stack_t(ss_sp: nil, ss_flags: Int32(SS_DISABLE), ss_size: 0)
        if sigaltstack(&off, nil) == 0 { munmap(stack.baseAddress, stack.count) }
    }

    /// Names the calling thread as `ps -L` and /proc show it (the kernel keeps the first 15
    /// bytes), with `prctl`: no descriptor, so a thread starting while the process is out of
    /// them (the leaderboard server's reserve descriptor, freed for a 503) takes none.
    private static func setName(_ name: String) { wh_set_thread_name(name) }
}
