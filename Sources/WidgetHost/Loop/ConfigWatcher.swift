#if canImport(Glibc)
import Glibc
#endif

/// Tells when a config file is written, by watching its *directory* with inotify (editors
/// save by writing a new file and renaming it over the old one, which a watch on the file
/// itself would miss). The owner polls `fd` in its loop and calls `fileChanged()`.
final class ConfigWatcher {
    /// The inotify descriptor to watch for input.
    let fd: Int32
    private let name: String

    /// - Returns: nil when inotify is unavailable (SIGHUP still reloads).
    init?(path given: String) {
        // A symlinked config (dotfiles) changes where the link points: watch the real file's
        // directory.
        let path = realpath(given, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? given
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        guard inotify_add_watch(fd, directory, UInt32(IN_CLOSE_WRITE | IN_MOVED_TO)) >= 0 else {
            close(fd)
            return nil
        }
    }

    deinit { close(fd) }

    /// Reads every pending event; true when one concerns the config file.
    func fileChanged() -> Bool {
        var changed = false
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (length, eventName) = buffer.withUnsafeBytes { raw -> (Int, String) in
                    let event = raw.load(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let bytes = raw[start..<min(count, start + Int(event.len))].prefix { $0 != 0 }
                    return (Int(event.len), String(decoding: bytes, as: UTF8.self))
                }
                if eventName == name { changed = true }
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
        return changed
    }
}
