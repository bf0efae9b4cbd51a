#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` with spawn attributes that start a child with no signal blocked and every
/// signal at its default: the bench's own mask (signals blocked for the harness) would keep a
/// server's SIGTERM from arriving, and the waitpid that stops it would wait for ever.
func withCleanSignals<R>(_ body: (inout posix_spawnattr_t) -> R) -> R {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    var all = sigset_t()
    sigfillset(&all)
    posix_spawnattr_setsigmask(&attributes, &none)
    posix_spawnattr_setsigdefault(&attributes, &all)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    return body(&attributes)
}
