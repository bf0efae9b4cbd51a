#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// `--record-messages FILE`: every message the dashboard applies, one line each (seconds since
/// start, the message; `MessageLog.line`), written as it is applied — a debugging record of
/// a real run. One `write` per message, on the loop; nothing is kept in memory.
///
/// The file is the user's, but the loop writes it: only a regular file is taken (a FIFO with
/// no reader, or one that stops reading, would freeze the dashboard; `/dev/tty` would write
/// into the screen), never through a symlink, mode 0600; lines are made printable and cut as
/// the log's are (`HostLog.line`); the record stops at `maximumBytes` with a line saying so.
@MainActor
final class MessageRecorder {
    /// The most a record grows to by default (a chatty run writes megabytes a day; a loop of
    /// reloads more).
    static let defaultMaximumBytes = 64 << 20

    let maximumBytes: Int

    private let fd: Int32
    private var written = 0
    private var stopped = false
    /// Times are written as seconds since this (the dashboard's start).
    var start = Date.distantPast

    /// The reason `init` refused the path, for `failure`.
    private static var refusal: String?

    /// Creates (or empties) the regular file at `path`; nil when it cannot be written (see
    /// `failure` for why).
    init?(path: String, maximumBytes: Int = MessageRecorder.defaultMaximumBytes) {
        Self.refusal = nil
        self.maximumBytes = maximumBytes
        // Said plainly before opening (a FIFO would answer ENXIO, "no such device or address").
        var existing = stat()
        if lstat(path, &existing) == 0 {
            switch existing.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK: Self.refusal = "it is a symbolic link"
            default: Self.refusal = "not a regular file"
            }
            if Self.refusal != nil { return nil }
        }
        // O_NONBLOCK: a FIFO without a reader fails at once (ENXIO) instead of blocking here.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else { return nil }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            Self.refusal = "not a regular file"
            return nil
        }
        _ = fchmod(fd, 0o600)
        self.fd = fd
    }

    /// The path's error as the command says it (after a failed `init`).
    static func failure(_ path: String) -> CommandOutput {
        let reason = refusal ?? (errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno)))
        return CommandOutput(exitCode: 2, standardError: "widgethost: --record-messages \(path): cannot write it: \(reason)\n")
    }

    deinit { close(fd) }

    func record(_ message: DashboardMessage, at date: Date) {
        guard !stopped else { return }
        let record = MessageLog.Record(date: date, message: message)
        var line = HostLog.line(MessageLog.time(record, start: start) + "\t", MessageLog.describe(message))
        if written + line.count > maximumBytes {
            stopped = true
            line = Array("recording stopped: the file reached its limit of \(maximumBytes) bytes\n".utf8)
        }
        var offset = 0
        while offset < line.count {
            let count = line[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {  // a full disk ends the record, not the dashboard
                stopped = true
                return
            }
            offset += count
        }
        written += line.count
    }
}
