#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// `--record-messages FILE`: every message the dashboard applies, one line each (seconds since
/// start, the message; `MessageLog.line`), written as it is applied — a debugging record of
/// a real run. One `write` per message, on the loop; nothing is kept in memory.
@MainActor
final class MessageRecorder {
    private let fd: Int32
    /// Times are written as seconds since this (the dashboard's start).
    var start = Date.distantPast

    /// Creates (or empties) `path`; nil when it cannot be written, with `errno` set.
    init?(path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        self.fd = fd
    }

    /// The path's error as the command says it (`errno` after a failed `init`).
    static func failure(_ path: String) -> CommandOutput {
        CommandOutput(exitCode: 1, standardError: "widgethost: cannot write \(path): \(String(cString: strerror(errno)))\n")
    }

    deinit { close(fd) }

    func record(_ message: DashboardMessage, at date: Date) {
        let line = Array((MessageLog.line(MessageLog.Record(date: date, message: message), start: start) + "\n").utf8)
        var offset = 0
        while offset < line.count {
            let written = line[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }  // a full disk ends the record, not the dashboard
            offset += written
        }
    }
}
