#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Tells when files change, by watching their *directories* with inotify (editors save by
/// writing a new file and renaming it over the old one, which a watch on the file would
/// miss), on a thread of its own that sleeps in a blocking `read` — no wake-up while nothing
/// changes, and events for other files in a watched directory wake only this thread, which
/// drops them.
///
/// One watcher serves every `text` panel of a host; its thread starts with the first watch.
/// `onChange` runs on that thread (the text widget calls `WidgetCenter.reloadTimelines`).
/// A directory that is removed loses its watch; the next `watch` of a file in it (the
/// provider's next reload) adds it again.
final class FileWatcher: Sendable {
    private struct Watches: Sendable {
        var fd: Int32 = -1
        var started = false
        /// Watch descriptor → the file names watched in that directory.
        var names: [Int32: Set<String>] = [:]
        /// Directory → its watch descriptor.
        var directories: [String: Int32] = [:]
    }

    private let watches = Mutex(Watches())
    private let onChange: @Sendable () -> Void

    init(onChange: @escaping @Sendable () -> Void) {
        self.onChange = onChange
    }

    /// Watches `path`'s directory for changes to `path` (and, when `path` is a symbolic link,
    /// the directory of the file it points to).
    ///
    /// - Returns: false when the directory cannot be watched (missing, or no inotify): the
    ///   caller should look again later.
    @discardableResult
    func watch(_ path: String) -> Bool {
        var targets = [Self.split(path)]
        if let resolved = realpath(path, nil) {
            let real = String(cString: resolved)
            free(resolved)
            if real != path { targets.append(Self.split(real)) }
        }
        let (added, startThread) = watches.withLock { state -> (Bool, Bool) in
            if state.fd < 0 { state.fd = inotify_init1(Int32(IN_CLOEXEC)) }
            guard state.fd >= 0 else { return (false, false) }
            var added = true
            for (directory, name) in targets {
                if let wd = state.directories[directory] {
                    state.names[wd, default: []].insert(name)
                    continue
                }
                // Not IN_CREATE (an empty file, CLOSE_WRITE follows) nor IN_MODIFY (every write of a file being written).
                let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR)
                let wd = inotify_add_watch(state.fd, directory, mask)
                guard wd >= 0 else { added = false; continue }
                state.directories[directory] = wd
                state.names[wd, default: []].insert(name)
            }
            defer { state.started = true }
            return (added, !state.started)
        }
        if startThread { start() }
        return added
    }

    /// The directory and file name of `path` ("." for a bare name).
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }

    private func start() {
        let box = Unmanaged.passRetained(self)
        var thread = pthread_t()
        let created = pthread_create(&thread, nil, { raw in
            let watcher = Unmanaged<FileWatcher>.fromOpaque(raw!).takeRetainedValue()
            watcher.run()
            return nil
        }, box.toOpaque())
        if created == 0 { pthread_detach(thread) } else { box.release() }
    }

    private func run() {
        let fd = watches.withLock { $0.fd }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            if changed(in: buffer, count: count) { onChange() }
        }
    }

    /// Whether the events in `buffer` concern a watched file (or a watched directory went away).
    private func changed(in buffer: [UInt8], count: Int) -> Bool {
        var events: [(wd: Int32, mask: UInt32, name: String)] = []
        var offset = 0
        let header = MemoryLayout<inotify_event>.size
        while offset + header <= count {
            let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
            let start = offset + header
            let end = min(count, start + Int(event.len))
            let name = String(decoding: buffer[start..<end].prefix { $0 != 0 }, as: UTF8.self)
            events.append((event.wd, event.mask, name))
            offset = end
        }
        return watches.withLock { state in
            var changed = false
            for event in events {
                if event.mask & UInt32(IN_IGNORED) != 0 {
                    // The directory is gone: forget it, so a later watch adds it again.
                    state.names[event.wd] = nil
                    state.directories = state.directories.filter { $0.value != event.wd }
                    changed = true
                } else if event.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    changed = true
                } else if state.names[event.wd]?.contains(event.name) == true {
                    changed = true
                }
            }
            return changed
        }
    }
}
