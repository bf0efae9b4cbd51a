#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// `--record-messages FILE`: every message the dashboard applies, written as it is applied in
/// the replayable format (`MessageLogFile`: a header line, then one JSON line per message
/// with its time and, for answers, the entries) — a record of a real run that
/// `snapshot --replay FILE` plays back to the same frames. One `write` per message, on the
/// loop; nothing is kept in memory.
///
/// The file is the user's, but the loop writes it: only a regular file is taken (a FIFO with
/// no reader, or one that stops reading, would freeze the dashboard; `/dev/tty` would write
/// into the screen), never through a symlink, mode 0600. JSON escapes every control
/// character in a string, so a line is one line; the record stops at `maximumBytes` with a
/// last line saying so.
@MainActor
final class MessageRecorder {
    /// The most a record grows to by default (a chatty run writes megabytes a day; a loop of
    /// reloads more).
    nonisolated static let defaultMaximumBytes = 64 << 20

    let maximumBytes: Int

    private let fd: Int32
    private let encoder: JSONEncoder
    private var written = 0
    private var stopped = false

    /// The reason `init` refused the path, for `failure`.
    private static var refusal: String?

    /// Creates (or empties) the regular file at `path`; nil when it cannot be written (see
    /// `failure` for why). `coding` names the codecs of the entries it will write.
    init?(path: String, coding: MessageLogCoding, maximumBytes: Int = MessageRecorder.defaultMaximumBytes) {
        Self.refusal = nil
        self.maximumBytes = maximumBytes
        encoder = MessageLogFile.encoder(coding)
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

    /// Writes the header: call once, before the first message.
    func begin(_ header: MessageLogHeader) {
        // A header always encodes (strings, numbers, a date).
        write((try? MessageLogFile.line(header, encoder: encoder)) ?? [])
    }

    func record(_ message: DashboardMessage, at date: Date) {
        let record = MessageLog.Record(date: date, message: message)
        do {
            write(try MessageLogFile.line(record, encoder: encoder))
        } catch {
            // An answer of entries no codec writes (a widget made outside the catalogue): the
            // line says so, and a replay stops there with that reason.
            var reason = String(describing: error)
            if case EncodingError.invalidValue(_, let context) = error { reason = context.debugDescription }
            let note = MessageLogFile.unrecordedLine(date: date, reason: String(reason.prefix(200)), encoder: encoder)
            write(note)
        }
    }

    private func write(_ line: [UInt8]) {
        guard !stopped else { return }
        var line = line
        if written + line.count > maximumBytes {
            stopped = true
            line = MessageLogFile.stoppedLine(limit: maximumBytes)
        }
        // A full disk ends the record, not the dashboard.
        guard OutputFile.write(fd, line) else {
            stopped = true
            return
        }
        written += line.count
    }
}
