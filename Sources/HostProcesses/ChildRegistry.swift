#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// The pids of every child the host started itself (`ProcessSpawner`, `ForegroundProcess`) and
/// has not reaped yet, process-wide: any other child of the host is an orphan re-parented to it
/// (`OrphanReaper`), which it may kill and reap without taking a status someone waits for.
///
/// A child is added under the same lock as its `posix_spawn` and removed under it with its
/// `waitpid`, and `OrphanReaper` looks at the host's children under it too, so a child that
/// exits the moment it starts is never taken for an orphan.
enum ChildRegistry {
    private static let pids = Mutex<Set<pid_t>>([])

    /// Runs `spawn` (which starts one child and returns its pid, or nil) and records the pid,
    /// atomically as `OrphanReaper` sees it.
    static func spawning<Result>(_ spawn: () -> (Result, pid_t?)) -> Result {
        pids.withLock { pids in
            let (result, pid) = spawn()
            if let pid { pids.insert(pid) }
            return result
        }
    }

    /// Runs `wait` (a `waitpid` of `pid`) and forgets `pid` when it returns true (reaped).
    static func reaping(_ pid: pid_t, _ wait: () -> Bool) -> Bool {
        pids.withLock { pids in
            let reaped = wait()
            if reaped { pids.remove(pid) }
            return reaped
        }
    }

    /// Forgets `pid`, reaped by a blocking `waitpid` of its starter (`ForegroundProcess`).
    static func forget(_ pid: pid_t) {
        _ = pids.withLock { $0.remove(pid) }
    }

    /// Runs `body` with the pids of the host's own children, none added or reaped meanwhile.
    static func withOwnChildren<Result>(_ body: (Set<pid_t>) -> Result) -> Result {
        pids.withLock { body($0) }
    }
}
