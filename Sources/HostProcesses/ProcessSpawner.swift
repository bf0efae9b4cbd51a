#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Synchronization

/// Starts child processes for widgets and extensions, and reaps them.
///
/// Each child is started with `posix_spawn` (never `Foundation.Process`, DESIGN.md §5) as the
/// leader of a process group of its own (so `signalGroup` ends whatever it forked and a
/// terminal's Ctrl-C never reaches it), with default signal dispositions and an empty signal
/// mask whatever the host has set, stdin from /dev/null (or a pipe), stdout and stderr to pipes,
/// no other descriptor of the host (`closefrom(3)`), exactly the environment given, and the
/// `ProcessLimits` asked for.
///
/// Reaping: the spawner waits only for its own children (`waitpid(pid, WNOHANG)` for each),
/// never `waitpid(-1)`, so it takes no status from anyone else's. The host's loop calls
/// `reapExited()` when its signalfd reads SIGCHLD (blocked in every thread); a child's
/// `onExit` then runs on the caller's thread. Thread-safe.
///
/// ```swift
/// let child = try spawner.spawn(["/bin/sh", "-c", "uptime"], environment: ["PATH": "/usr/bin:/bin"],
///                               limits: ProcessLimits(cpuSeconds: 10)) { exit in log("uptime \(exit)") }
/// // read child.standardOutput until EOF; on a timeout: child.signalGroup(SIGKILL)
/// ```
public final class ProcessSpawner: Sendable {
    /// Where the child's stdin comes from.
    public enum Input: Sendable {
        /// /dev/null: a child that reads gets EOF at once, never the host's terminal.
        case null
        /// A pipe whose write end is `SpawnedProcess.standardInput` (an extension's channel).
        case pipe
    }

    /// Where one of the child's output streams goes.
    public enum Output: Sendable {
        /// A pipe whose read end the `SpawnedProcess` holds.
        case pipe
        /// /dev/null.
        case null
    }

    /// The child could not be started.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The call that failed, and its errno value.
        public var call: String
        public var code: Int32

        public var description: String { "\(call): \(String(cString: strerror(code)))" }
    }

    private struct Child: Sendable {
        let process: SpawnedProcess
        let onExit: @Sendable (ProcessExit) -> Void
    }

    private let children = Mutex<[pid_t: Child]>([:])
    private let shell: String

    /// - Parameter shell: the shell that applies `ProcessLimits` (`/bin/sh`).
    public init(shell: String = "/bin/sh") {
        self.shell = shell
    }

    /// Children started and not yet reaped.
    public var runningCount: Int { children.withLock { $0.count } }

    /// Starts `arguments[0]` (a path; it is not looked up in `PATH`) with `arguments`.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment.
    ///   - workingDirectory: where it runs; nil: the host's.
    ///   - limits: applied before the program runs (see `ProcessLimits.shellPrelude`).
    ///   - onExit: called once, from `reapExited()`, with how it ended.
    /// - Throws: `Failure` when a pipe or the spawn fails (a missing program, say); no
    ///   descriptor is left open then.
    public func spawn(_ arguments: [String], environment: [String: String] = [:], workingDirectory: String? = nil,
                      standardInput: Input = .null, standardOutput: Output = .pipe, standardError: Output = .pipe,
                      limits: ProcessLimits = .inherited,
                      onExit: @escaping @Sendable (ProcessExit) -> Void = { _ in }) throws(Failure) -> SpawnedProcess {
        precondition(!arguments.isEmpty, "no program to run")
        var opened: [Int32] = []
        func closeOpened() { for fd in opened { close(fd) } }
        func makePipe() throws(Failure) -> (read: Int32, write: Int32) {
            var ends: [Int32] = [-1, -1]
            guard wh_pipe_cloexec(&ends) == 0 else {
                let code = errno
                closeOpened()
                throw Failure(call: "pipe2", code: code)
            }
            opened += ends
            return (ends[0], ends[1])
        }
        let input = standardInput == .pipe ? try makePipe() : nil
        let output = standardOutput == .pipe ? try makePipe() : nil
        let errors = standardError == .pipe ? try makePipe() : nil

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if let input { posix_spawn_file_actions_adddup2(&actions, input.read, 0) }
        else { posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0) }
        for (fd, pipe) in [(Int32(1), output), (2, errors)] {
            if let pipe { posix_spawn_file_actions_adddup2(&actions, pipe.write, fd) }
            else { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", O_WRONLY, 0) }
        }
        // Descriptors a library opened without O_CLOEXEC stay the host's.
        wh_spawn_add_closefrom(&actions, 3)
        if let workingDirectory { wh_spawn_add_chdir(&actions, workingDirectory) }

        var attributes = posix_spawnattr_t()
        SpawnParts.groupLeader(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }

        let argumentsToRun = limits.isInherited ? arguments
            : [shell, "-c", limits.shellPrelude + " && exec \"$@\"", "sh"] + arguments
        var pid: pid_t = 0
        // Under the lock: a SIGCHLD reaping concurrently must find the child registered.
        // The process is returned from here, not looked up again after: a child that exits at
        // once may be reaped (and removed) by the loop before this function returns.
        let (result, spawned) = SpawnParts.withCArrays(argumentsToRun, environment) { argv, envp in
            children.withLock { table -> (Int32, SpawnedProcess?) in
                ChildRegistry.spawning { () -> ((Int32, SpawnedProcess?), pid_t?) in
                    let result = posix_spawn(&pid, argumentsToRun[0], &actions, &attributes, argv, envp)
                    guard result == 0 else { return ((result, nil), nil) }
                    let process = SpawnedProcess(pid: pid, standardInput: input?.write, standardOutput: output?.read,
                                                 standardError: errors?.read)
                    table[pid] = Child(process: process, onExit: onExit)
                    return ((0, process), pid)
                }
            }
        }
        guard result == 0, let spawned else {
            closeOpened()
            throw Failure(call: "posix_spawn \(arguments[0])", code: result)
        }
        // The child's ends are its own now.
        for end in [input?.read, output?.write, errors?.write] { if let end { close(end) } }
        return spawned
    }

    /// A descriptor that polls readable once `process` has ended (a pidfd, close-on-exec; the
    /// caller closes it), so a thread can wait for the exit without polling `reapExited()`;
    /// nil when it was reaped already (its pid may be someone else's by now) or the kernel has
    /// no `pidfd_open`. Opened under the lock `reapExited()` takes: the pid is still the child's.
    public func exitDescriptor(for process: SpawnedProcess) -> Int32? {
        children.withLock { table -> Int32? in
            guard table[process.pid] != nil else { return nil }
            let fd = wh_pidfd_open(process.pid)
            return fd >= 0 ? fd : nil
        }
    }

    /// Collects every child of this spawner that has ended and calls its `onExit`.
    ///
    /// Call it on SIGCHLD (the signal says "one or more children changed"; several exits can
    /// arrive as one signal, so every child is checked). Never blocks.
    ///
    /// - Returns: the children reaped, in pid order.
    @discardableResult
    public func reapExited() -> [(SpawnedProcess, ProcessExit)] {
        let reaped = children.withLock { table -> [(Child, ProcessExit)] in
            var reaped: [(Child, ProcessExit)] = []
            for pid in table.keys.sorted() {
                var status: Int32 = 0
                var result: pid_t = 0
                var code: Int32 = 0
                // ECHILD: someone else reaped it (or SIGCHLD is ignored): the status is lost.
                let gone = ChildRegistry.reaping(pid) {
                    repeat { result = waitpid(pid, &status, WNOHANG) } while result < 0 && errno == EINTR
                    code = result < 0 ? errno : 0
                    return result == pid || code == ECHILD
                }
                if gone {
                    let exit = result == pid ? ProcessExit(waitStatus: status) : .exited(-1)
                    if let child = table.removeValue(forKey: pid) { reaped.append((child, exit)) }
                }
            }
            return reaped
        }
        for (child, exit) in reaped {
            child.process.reaped(exit)
            child.onExit(exit)
        }
        return reaped.map { ($0.0.process, $0.1) }
    }
}
