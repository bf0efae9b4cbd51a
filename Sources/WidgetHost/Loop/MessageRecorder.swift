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
        switch OutputFile.open(path, mode: 0o600) {
        case .success(let fd): self.fd = fd
        case .failure(let refusal):
            Self.refusal = refusal.reason
            return nil
        }
    }

    static func failure(_ path: String) -> CommandOutput {
        let reason = refusal ?? "cannot open it"
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
        // A full disk ends the record, not the dashboard.
        guard OutputFile.write(fd, line) else {
            stopped = true
            return
        }
        written += line.count
    }
}
