#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import Synchronization

/// Which of an extension's downloads were started with headers — the session and the URL,
/// never the headers — one `SESSION<tab>URL` a line in `STATE/extension-headers/NAME`
/// (`ExtensionLauncher.headerLedgerPath`: the host's, outside the extension's data directory).
///
/// The headers themselves live in memory only, so a host that stopped while such a download
/// ran cannot resume it as asked: on the next start the mark tells it to fail the task instead
/// (see `ExtensionHost.failInterruptedHeaderDownloads`). A mark goes once the task's event has
/// been answered.
///
/// One per extension host (`ExtensionHost.ledger()`): the file is read once, kept in memory
/// under the lock, and written (atomically, not fsynced) only when a mark comes or goes;
/// nothing is created before the first mark.
final class HeaderLedger: Sendable {
    static let maximumEntries = 256
    /// The largest file read: 256 marks of a session and a URL of at most 4 KiB each, with room.
    static let maximumFileBytes = 2 << 20
    let path: String
    /// The marks, once read.
    private let marks = Mutex<[String]?>(nil)

    init(path: String) {
        self.path = path
    }

    static func key(session: String, url: String) -> String { session + "\t" + url }

    var entries: [String] { withEntries { $0 } }

    func add(_ key: String) {
        withEntries { entries in
            guard !entries.contains(key) else { return }
            entries.append(key)
            entries = Array(entries.suffix(Self.maximumEntries))
            write(entries)
        }
    }

    func remove(_ keys: Set<String>) {
        guard !keys.isEmpty else { return }
        withEntries { entries in
            let kept = entries.filter { !keys.contains($0) }
            guard kept.count != entries.count else { return }
            entries = kept
            write(kept)
        }
    }

    /// Runs `body` on the marks (read from the file the first time) with the lock held.
    private func withEntries<T>(_ body: (inout [String]) -> T) -> T {
        marks.withLock { marks in
            var entries = marks ?? read()
            defer { marks = entries }
            return body(&entries)
        }
    }

    /// The file's marks; none when it is missing, not a regular file, or too large.
    private func read() -> [String] {
        guard case .success(let bytes) = ExtensionDiscovery.readFile(path, limit: Self.maximumFileBytes) else { return [] }
        return bytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Replaces the file (a new file renamed over the old one: never half written); removes
    /// it when no mark is left.
    private func write(_ entries: [String]) {
        if entries.isEmpty {
            unlink(path)
            return
        }
        guard (try? FilePaths.makeDirectories(String(path[..<path.lastIndex(of: "/")!]))) != nil else { return }
        let temporary = path + ".new"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { return }
        if FilePaths.writeAll(fd, Array(entries.map { $0 + "\n" }.joined().utf8)) != nil {
            close(fd)
            unlink(temporary)
            return
        }
        _ = FilePaths.commit(fd: fd, temporary: temporary, to: path, syncData: false)
    }
}
