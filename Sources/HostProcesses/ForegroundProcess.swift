#if canImport(Glibc)
import Glibc
#endif
import CLinux

/// Runs a program in the terminal's foreground and waits for it, as a shell runs a job: the
/// host's `$EDITOR` action, with the screen given back to it first.
///
/// The child gets a process group of its own and the terminal (`tcsetpgrp`), so Ctrl-C and
/// Ctrl-Z in the program reach it and not the host; when it ends the host takes the terminal
/// back. The caller blocks while it runs (the user is in the program meanwhile).
public enum ForegroundProcess {
    /// Starts `arguments` (`arguments[0]` looked up in `PATH`) with `environment` and waits.
    ///
    /// - Parameter terminal: the terminal's descriptor (0); when it is not a terminal the child
    ///   still runs, without the terminal handover.
    /// - Returns: how it ended.
    /// - Throws: `ProcessSpawner.Failure` when it cannot start (no such program).
    public static func run(_ arguments: [String], environment: [String: String], terminal: Int32 = 0) throws(ProcessSpawner.Failure) -> ProcessExit {
        // The user's own program: what it leaves running on purpose is not the host's to kill.
        try OrphanReaper.withoutAdopting { () throws(ProcessSpawner.Failure) -> ProcessExit in
            try runInForeground(arguments, environment: environment, terminal: terminal)
        }
    }

    private static func runInForeground(_ arguments: [String], environment: [String: String], terminal: Int32) throws(ProcessSpawner.Failure) -> ProcessExit {
        precondition(!arguments.isEmpty, "no program to run")
        var attributes = posix_spawnattr_t()
        SpawnParts.groupLeader(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        wh_spawn_add_closefrom(&actions, 3)
        let isTerminal = isatty(terminal) == 1
        // The child takes the terminal itself, before it runs: the parent's tcsetpgrp below
        // comes after posix_spawn returns, and a program that printed and read before it (a
        // Ctrl-C the user typed then) had its keys go to the host's group instead.
        // Only when the terminal is ours to hand over (the host's group is its foreground one):
        // otherwise the child's tcsetpgrp would fail the spawn.
        if isTerminal, tcgetpgrp(terminal) == getpgrp() { wh_spawn_add_foreground(&actions, terminal) }

        var pid: pid_t = 0
        // Recorded as the host's own child: `OrphanReaper` leaves it to the `waitpid` below.
        let result = SpawnParts.withCArrays(arguments, environment) { argv, envp in
            ChildRegistry.spawning { () -> (Int32, pid_t?) in
                let result = posix_spawnp(&pid, arguments[0], &actions, &attributes, argv, envp)
                return (result, result == 0 ? pid : nil)
            }
        }
        guard result == 0 else { throw ProcessSpawner.Failure(call: "cannot run \(arguments[0])", code: result) }

        let host = getpgrp()
        // Blocked so that taking the terminal back from the background does not stop us.
        var ttou = sigset_t()
        sigemptyset(&ttou)
        sigaddset(&ttou, SIGTTOU)
        var saved = sigset_t()
        pthread_sigmask(SIG_BLOCK, &ttou, &saved)
        defer { pthread_sigmask(SIG_SETMASK, &saved, nil) }
        if isTerminal { tcsetpgrp(terminal, pid) }
        var status: Int32 = 0
        while true {
            let waited = waitpid(pid, &status, WUNTRACED)
            if waited == -1 {
                if errno == EINTR { continue }
                status = 0  // reaped elsewhere: nothing more to learn
                break
            }
            // Stopped (Ctrl-Z in the program, or a read before it had the terminal): it is the
            // program the user is in, so it goes on with the terminal.
            if status & 0xff == 0x7f {
                if isTerminal { tcsetpgrp(terminal, pid) }
                kill(-pid, SIGCONT)
                continue
            }
            break
        }
        ChildRegistry.forget(pid)
        if isTerminal { tcsetpgrp(terminal, host) }
        return ProcessExit(waitStatus: status)
    }
}
