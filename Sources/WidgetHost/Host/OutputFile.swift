#if canImport(Glibc)
import Glibc
#endif

/// A file a command writes for the user (`--record-messages`, `snapshot --record`): only a
/// regular file is taken, or a new one is made — a FIFO with no reader would block, `/dev/tty`
/// would write into the screen —, never through a symbolic link, with the mode given.
enum OutputFile {
    /// The open descriptor, or why the path cannot be written (said plainly: a FIFO would
    /// otherwise answer "No such device or address").
    static func open(_ path: String, mode: mode_t) -> Result<Int32, Refusal> {
        var existing = stat()
        if lstat(path, &existing) == 0 {
            switch existing.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK: return .failure(Refusal(reason: "it is a symbolic link"))
            default: return .failure(Refusal(reason: "not a regular file"))
            }
        }
        // O_NONBLOCK: a FIFO put there meanwhile fails at once (ENXIO) instead of blocking.
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode)
        guard fd >= 0 else {
            return .failure(Refusal(reason: errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno))))
        }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            return .failure(Refusal(reason: "not a regular file"))
        }
        _ = fchmod(fd, mode)
        return .success(fd)
    }

    /// Writes all of `bytes`; false when the file stops taking them (a full disk).
    static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Why a path cannot be written.
    struct Refusal: Error {
        var reason: String
    }
}
