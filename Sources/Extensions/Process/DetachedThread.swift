#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Named detached threads with small stacks, for the extension host's blocking work: a
/// connection's readers (`wh-ext-read`, `wh-ext-err`) and session deliveries (`wh-ext-deliver`).
enum DetachedThread {
    private final class Body {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts a detached thread named `name` (at most 15 characters); false when none can start.
    static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        let context = Unmanaged.passRetained(Body(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        pthread_attr_setstacksize(&attributes, 256 * 1024)
        let result = pthread_create(&thread, &attributes, { raw in
            let body = Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue()
            wh_set_thread_name(body.name)
            body.body()
            return nil
        }, context)
        pthread_attr_destroy(&attributes)
        if result != 0 { Unmanaged<Body>.fromOpaque(context).release() }
        return result == 0
    }
}
