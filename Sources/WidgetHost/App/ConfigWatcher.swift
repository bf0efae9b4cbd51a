#if canImport(Glibc)
import Glibc
#endif
import Dispatch

/// Calls back when a config file is written, by watching its *directory* with inotify
/// (editors save by writing a new file and renaming it over the old one, which a watch on the
/// file itself would miss).
final class ConfigWatcher {
    private let fd: Int32
    private let source: any DispatchSourceRead

    /// - Returns: nil when inotify is unavailable (SIGHUP still reloads).
    init?(path: String, queue: DispatchQueue, onChange: @escaping @Sendable () -> Void) {
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        guard inotify_add_watch(fd, directory, mask) >= 0 else {
            close(fd)
            return nil
        }
        self.fd = fd
        source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: queue)
        source.setEventHandler {
            if ConfigWatcher.drain(fd).contains(name) { onChange() }
        }
        source.resume()
    }

    deinit {
        source.cancel()
        close(fd)
    }

    /// Reads every pending event; returns the file names they concern.
    static func drain(_ fd: Int32) -> Set<String> {
        var names: Set<String> = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= count {
                let (length, name) = buffer.withUnsafeBytes { raw -> (Int, String) in
                    let event = raw.load(fromByteOffset: offset, as: inotify_event.self)
                    let start = offset + MemoryLayout<inotify_event>.size
                    let bytes = raw[start..<min(count, start + Int(event.len))].prefix { $0 != 0 }
                    return (Int(event.len), String(decoding: bytes, as: UTF8.self))
                }
                names.insert(name)
                offset += MemoryLayout<inotify_event>.size + length
            }
        }
        return names
    }
}
