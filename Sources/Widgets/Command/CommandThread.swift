#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// A detached thread named `wh-command` with a small stack, for one command run's blocking
/// work (reading its pipes, waiting for its exit), so the run never holds a shared provider
/// thread: four commands that sleep for minutes leave every other panel its threads.
enum CommandThread {
    private final class Body {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a thread of its own; false when no thread can start.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 256 * 1024)
        let result = pthread_create(&thread, &attributes, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            wh_set_thread_name("wh-command")
            body.body()
            return nil
        }, context)
        pthread_attr_destroy(&attributes)
        if result != 0 { Unmanaged<Body>.fromOpaque(context).release() }
        return result == 0
    }
}
