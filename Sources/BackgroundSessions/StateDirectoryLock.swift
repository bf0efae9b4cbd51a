import Glibc
import Synchronization

/// The state directory's lock: a non-blocking `flock` on `<state>/lock`.
///
/// The kernel drops a `flock` when its holder dies, so a SIGKILLed host never leaves the
/// directory locked. The lock belongs to the open file description: a second `acquire` in the
/// same process fails like one in another process. Thread-safe.
public final class StateDirectoryLock: Sendable {
    public let path: String
    private let fd: Mutex<Int32>

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = Mutex(fd)
    }

    /// Takes the lock of `directory` (creating `lock` in it, private: 0600), or returns nil
    /// when another holder has it. A symbolic link named `lock` is not followed (an error).
    ///
    /// Throws `FileSystemError` when the file cannot be opened or locked for another reason.
    public static func acquire(directory: String) throws(FileSystemError) -> StateDirectoryLock? {
        let path = FilePaths.join(directory, "lock")
        let fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileSystemError(operation: "open", path: path, errno: errno) }
        fchmod(fd, 0o600)
        // A command asking whether a dashboard runs (`ControlClient.isLocked`) holds a shared
        // lock for a moment: tried again for 50 ms before another holder is believed.
        var busy = 0
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            let e = errno
            if e == EINTR { continue }
            if e == EWOULDBLOCK && busy < 5 {
                busy += 1
                usleep(10_000)
                continue
            }
            close(fd)
            if e == EWOULDBLOCK { return nil }
            throw FileSystemError(operation: "flock", path: path, errno: e)
        }
        return StateDirectoryLock(path: path, fd: fd)
    }

    /// Gives the lock up. Idempotent.
    public func release() {
        let old = fd.withLock { fd -> Int32 in
            defer { fd = -1 }
            return fd
        }
        guard old >= 0 else { return }
        // Unlock before closing: a child forked meanwhile (posix_spawn elsewhere in the process)
        // shares the open file description until its exec, and would keep the lock that long.
        flock(old, LOCK_UN)
        close(old)
    }

    deinit { release() }
}
