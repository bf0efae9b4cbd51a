#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Synchronization

/// A child started by `ProcessSpawner`: the leader of a process group of its own.
///
/// The caller owns the pipe ends (`standardInput`, `standardOutput`, `standardError`; each
/// `O_CLOEXEC`, so no other child inherits them) and closes them with `closePipes()`. The exit
/// is reported once, by `ProcessSpawner.reapExited()` — which the host's loop calls on SIGCHLD.
public final class SpawnedProcess: Sendable {
    /// The child's pid, which is also its process group id.
    public let pid: pid_t
    /// The write end of the child's stdin, when it was asked for (`.pipe`); else nil (/dev/null).
    public let standardInput: Int32?
    /// The read end of the child's stdout, or nil when it goes elsewhere.
    public let standardOutput: Int32?
    /// The read end of the child's stderr, or nil when it goes elsewhere.
    public let standardError: Int32?
    private let state = Mutex<(exit: ProcessExit?, pipesClosed: Bool, inputClosed: Bool)>((nil, false, false))

    init(pid: pid_t, standardInput: Int32?, standardOutput: Int32?, standardError: Int32?) {
        self.pid = pid
        self.standardInput = standardInput
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    deinit { closePipes() }

    /// How it ended, once it has been reaped.
    public var exit: ProcessExit? { state.withLock { $0.exit } }

    func reaped(_ exit: ProcessExit) { state.withLock { $0.exit = exit } }

    /// Sends `signal` to the child's whole process group (what it forked too).
    ///
    /// Safe after the child was reaped: a group id stays taken while any member lives, so the
    /// signal reaches the leftovers, or nobody (`false`, ESRCH).
    @discardableResult
    public func signalGroup(_ signal: Int32 = SIGKILL) -> Bool {
        kill(-pid, signal) == 0
    }

    /// Closes the pipe ends the host holds. Idempotent.
    public func closePipes() {
        let (first, inputOpen) = state.withLock { s -> (Bool, Bool) in
            defer { s.pipesClosed = true; s.inputClosed = true }
            return (!s.pipesClosed, !s.inputClosed)
        }
        guard first else { return }
        for fd in [inputOpen ? standardInput : nil, standardOutput, standardError] { if let fd { close(fd) } }
    }

    /// Closes the write end of the child's stdin (the child reads end of file); the other
    /// pipes stay open. Idempotent, and `closePipes` then leaves it alone: a descriptor closed
    /// twice may close another thread's file that took its number in between.
    public func closeStandardInput() {
        let open = state.withLock { s -> Bool in
            defer { s.inputClosed = true }
            return !s.inputClosed
        }
        if open, let standardInput { close(standardInput) }
    }
}
