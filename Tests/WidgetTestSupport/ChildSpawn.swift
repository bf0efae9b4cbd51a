#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Starts a child program the way every test harness does: `posix_spawn`, never
/// `Foundation.Process` (DESIGN.md §5).
///
/// The child runs in a process group of its own (so a test can signal the group), with stdin
/// from /dev/null, default signal dispositions and an empty signal mask whatever the test
/// process has set, and exactly the environment given. Descriptors the caller hands over for
/// stdout or stderr should be `O_CLOEXEC`: the child gets its own `dup2` copies, and a child
/// spawned concurrently by another test must not inherit them.
///
/// ```swift
/// let pid = try ChildSpawn.start([path, "--quiet"], environment: ["PATH=/usr/bin:/bin"],
///                                standardOutput: .file(outPath), standardError: .inherit)
/// ```
public enum ChildSpawn {
    /// Where one of the child's output streams goes.
    public enum Output {
        /// Where the test process's own stream goes.
        case inherit
        /// A copy of this open descriptor (a pipe's write end, a temporary file).
        case descriptor(Int32)
        /// This file, created or truncated.
        case file(String)
    }

    /// `posix_spawn` failed; `code` is its errno value.
    public struct Failure: Error, CustomStringConvertible {
        public var code: Int32
        public var description: String { String(cString: strerror(code)) }
    }

    /// Starts `arguments[0]` with `arguments` and returns its pid (also its process group id).
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment, as `NAME=value` strings.
    ///   - searchPath: look `arguments[0]` up in `PATH` (`posix_spawnp`) when it has no slash.
    public static func start(_ arguments: [String], environment: [String], standardOutput: Output,
                             standardError: Output, searchPath: Bool = false) throws(Failure) -> pid_t {
        precondition(!arguments.isEmpty, "no program to run")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (fd, output) in [(Int32(1), standardOutput), (2, standardError)] {
            switch output {
            case .inherit: break
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, fd)
            case .file(let path): posix_spawn_file_actions_addopen(&actions, fd, path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            }
        }
        // Nothing of the test process beyond 0–2: a library's descriptor opened without
        // O_CLOEXEC, or another test's pipe, must not reach the child (a server started under
        // `ulimit -n 64` found its low descriptors taken by inherited ones and could not accept).
        wh_spawn_add_closefrom(&actions, 3)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer { (argv + envp).forEach { free($0) } }
        var pid: pid_t = 0
        let result = searchPath
            ? posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
            : posix_spawn(&pid, arguments[0], &actions, &attributes, argv, envp)
        guard result == 0 else { throw Failure(code: result) }
        return pid
    }
}
