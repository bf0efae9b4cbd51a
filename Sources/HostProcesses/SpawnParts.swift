#if canImport(Glibc)
import Glibc
#endif

/// The pieces of a `posix_spawn` every child of the host shares (`ProcessSpawner`,
/// `ForegroundProcess`).
enum SpawnParts {
    /// Initialises `attributes` for a child that leads a process group of its own, with no
    /// signal blocked and every signal at its default (the host blocks and reads its own).
    /// The caller destroys them.
    static func groupLeader(_ attributes: inout posix_spawnattr_t) {
        posix_spawnattr_init(&attributes)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    /// `arguments` and `environment` (`NAME=value`, sorted) as NULL-terminated C arrays for
    /// `body`; freed after it.
    static func withCArrays<T>(_ arguments: [String], _ environment: [String: String],
                               _ body: ([UnsafeMutablePointer<CChar>?], [UnsafeMutablePointer<CChar>?]) throws -> T) rethrows -> T {
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        return try body(argv, envp)
    }
}
