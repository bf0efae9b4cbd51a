#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import FoundationEssentials

/// The dashboard's log file (`<state>/widgethost.log`): while curses owns the screen nothing
/// may be printed, so messages go here, one timestamped line each.
///
/// Thread-safe: each line is one `write(2)` on a file opened with `O_APPEND`.
final class HostLog: Sendable {
    private let fd: Int32
    let isDebug: Bool
    let path: String

    /// Opens (creating) the log at `path`; nil when it cannot be opened.
    init?(path: String, debug: Bool) {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.path = path
        isDebug = debug
    }

    deinit { close(fd) }

    func info(_ message: String) { write("info", message) }
    func error(_ message: String) { write("error", message) }
    func debug(_ message: @autoclosure () -> String) { if isDebug { write("debug", message()) } }

    private func write(_ level: String, _ message: String) {
        // Whatever a caller logs, URLs in it never show their credentials.
        let clean = URLRedaction.redactingURLs(in: message).unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : String($0) }.joined()
        let line = "\(Date().ISO8601Format()) \(level) \(clean)\n"
        _ = line.utf8CString.withUnsafeBufferPointer { Glibc.write(fd, $0.baseAddress, $0.count - 1) }
    }
}
