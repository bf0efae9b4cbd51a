#if canImport(Glibc)
import Glibc
#endif

/// How much stack a piece of work takes, measured: it runs on a thread whose 8 MiB stack was
/// filled with a pattern beforehand, and the deepest byte no longer holding the pattern marks
/// the most it used (thread start-up included). Tests compare it with the stack of the thread
/// that does the work in the host, in the build the tests run in (debug, the hungrier one).
public enum StackUse {
    private static let size = 8 << 20
    private static let pattern: UInt8 = 0xA5

    private final class Work {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// The bytes of stack `body` used at its deepest.
    public static func measure(_ body: @escaping () -> Void) -> Int {
        guard let memory = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0),
              memory != MAP_FAILED else { fatalError("no memory for a measured stack") }
        defer { munmap(memory, size) }
        memset(memory, Int32(pattern), size)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstack(&attributes, memory, size)
        let context = Unmanaged.passRetained(Work(body)).toOpaque()
        var thread = pthread_t()
        let created = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Work>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, context)
        precondition(created == 0, "cannot start the measuring thread")
        pthread_join(thread, nil)
        let bytes = memory.assumingMemoryBound(to: UInt8.self)
        var untouched = 0
        while untouched < size && bytes[untouched] == pattern { untouched += 1 }
        return size - untouched
    }
}
