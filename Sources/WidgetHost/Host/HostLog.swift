#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import FoundationEssentials
import Synchronization

/// The dashboard's log file (`<state>/widgethost.log`): while curses owns the screen nothing
/// may be printed, so messages go here, one timestamped line each.
///
/// Bounded: a line is cut at `maxLineBytes`, and once the file would pass `maxBytes` it is
/// renamed `widgethost.log.1` (replacing the previous one) and a new file started, so the log
/// never takes more than about twice `maxBytes`.
///
/// Thread-safe: writes and rotation happen under one lock; each line is one `write(2)` on a
/// file opened with `O_APPEND`.
final class HostLog: Sendable {
    private struct File {
        var fd: Int32
        /// Bytes in the current file, as far as this process knows.
        var size: Int
    }

    /// The default bound of one file: 1 MiB.
    static let defaultMaxBytes = 1 << 20
    /// The longest line written, in bytes, message and prefix together.
    static let maxLineBytes = 8 * 1024

    let isDebug: Bool
    let path: String
    let maxBytes: Int
    private let file: Mutex<File>

    /// Opens (creating) the log at `path`; nil when it cannot be opened.
    ///
    /// - Parameter maxBytes: the size at which the file is rotated (tests pass less).
    init?(path: String, debug: Bool, maxBytes: Int = HostLog.defaultMaxBytes) {
        guard let opened = Self.open(path) else { return nil }
        self.path = path
        self.maxBytes = max(Self.maxLineBytes, maxBytes)
        isDebug = debug
        file = Mutex(opened)
    }

    deinit { file.withLock { _ = close($0.fd) } }

    /// The previous file, kept after a rotation.
    var rotatedPath: String { path + ".1" }

    func info(_ message: String) { write("info", message) }
    func error(_ message: String) { write("error", message) }
    func debug(_ message: @autoclosure () -> String) { if isDebug { write("debug", message()) } }

    private func write(_ level: String, _ message: String) {
        let bytes = Self.line("\(Date().ISO8601Format()) \(level) ", message)
        file.withLock { file in
            if file.size + bytes.count > maxBytes, file.size > 0 { rotate(&file) }
            let written = bytes.withUnsafeBytes { Glibc.write(file.fd, $0.baseAddress, $0.count) }
            if written > 0 { file.size += written }
        }
    }

    /// Renames the full file aside and starts a new one; on failure keeps writing where it was.
    private func rotate(_ file: inout File) {
        guard rename(path, rotatedPath) == 0, let fresh = Self.open(path) else {
            // Renamed but not reopened (or not renamed): start counting again rather than
            // retrying on every line; the next full megabyte tries again.
            file.size = 0
            return
        }
        close(file.fd)
        file = fresh
    }

    private static func open(_ path: String) -> File? {
        // O_NOFOLLOW: the state directory is private, and a symlink placed there must not make
        // the host append to (or rotate) a file elsewhere.
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return nil }
        var info = stat()
        let size = fstat(fd, &info) == 0 ? Int(info.st_size) : 0
        return File(fd: fd, size: size)
    }

    /// One line of a file the host writes for people (the log, `--record-messages`): `prefix`,
    /// then `message` with its controls (C0, DEL, C1) made spaces — one message is one line,
    /// and `cat` of the file cannot drive the terminal — and the credentials of any URL in it
    /// hidden; cut at `maxLineBytes` with ` …`; a line feed at the end.
    static func line(_ prefix: String, _ message: String) -> [UInt8] {
        var clean = String.UnicodeScalarView()
        for scalar in URLRedaction.redactingURLs(in: message).unicodeScalars {
            let v = scalar.value
            clean.append(v < 0x20 || (0x7F...0x9F).contains(v) ? " " : scalar)
        }
        var bytes = Array(prefix.utf8) + Array(String(clean).utf8)
        if bytes.count > maxLineBytes - 1 {
            bytes = cut(bytes, to: maxLineBytes - 5) + Array(" …".utf8)
        }
        bytes.append(10)
        return bytes
    }

    /// The first `count` bytes of UTF-8 `bytes`, not splitting a character's bytes.
    private static func cut(_ bytes: [UInt8], to count: Int) -> [UInt8] {
        var end = min(count, bytes.count)
        while end > 0, end < bytes.count, bytes[end] & 0xC0 == 0x80 { end -= 1 }
        return Array(bytes[..<end])
    }
}
