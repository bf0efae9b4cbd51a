#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import Synchronization

/// Which of an extension's downloads were started with headers — the session and the URL,
/// never the headers — in `DATA/.downloads/with-headers`, one `SESSION<tab>URL` a line.
///
/// The headers themselves live in memory only, so a host that stopped while such a download
/// ran cannot resume it as asked: on the next start the mark tells it to fail the task instead
/// (see `ExtensionHost.failInterruptedHeaderDownloads`). A mark goes once the task's event has
/// been answered.
///
/// One per extension host (`ExtensionHost.ledger()`), so its lock orders every change to the
/// file; nothing is created until the first mark.
final class HeaderLedger: Sendable {
    static let maximumEntries = 256
    let path: String
    private let lock = Mutex(())

    static let fileName = "with-headers"

    init(downloads: String) {
        path = downloads + "/" + Self.fileName
    }

    static func key(session: String, url: String) -> String { session + "\t" + url }

    var entries: [String] { lock.withLock { _ in read() } }

    func add(_ key: String) {
        lock.withLock { _ in
            var entries = read()
            guard !entries.contains(key) else { return }
            entries.append(key)
            write(Array(entries.suffix(Self.maximumEntries)))
        }
    }

    func remove(_ keys: Set<String>) {
        guard !keys.isEmpty else { return }
        lock.withLock { _ in
            let entries = read()
            let kept = entries.filter { !keys.contains($0) }
            if kept.count != entries.count { write(kept) }
        }
    }

    private func read() -> [String] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while bytes.count <= Self.maximumEntries * 5000 {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Replaces the file (a new file renamed over the old one: never half written).
    private func write(_ entries: [String]) {
        if entries.isEmpty {
            unlink(path)
            return
        }
        guard (try? FilePaths.makeDirectories(String(path[..<path.lastIndex(of: "/")!]))) != nil else { return }
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        let failed = FilePaths.writeAll(fd, Array(entries.map { $0 + "\n" }.joined().utf8)) != nil
        close(fd)
        if failed { unlink(temporary) } else { rename(temporary, path) }
    }
}
