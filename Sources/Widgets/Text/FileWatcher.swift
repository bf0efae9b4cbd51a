#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Synchronization
import WidgetCore

/// Tells when files change, by watching their *directories* with inotify (editors save by
/// writing a new file and renaming it over the old one, which a watch on the file would
/// miss), on a thread of its own (`wh-watch`) that sleeps in a blocking `read` — no wake-up
/// while nothing changes, and events for other files in a watched directory wake only this
/// thread, which drops them.
///
/// One watcher serves every `text` panel of a host; its thread starts with the first watch.
/// Each panel's provider holds a `Lease` on its file: the file is watched while a lease on it
/// lives, and a directory no lease names any more is no longer watched (a panel removed by a
/// config reload drops its provider, and so its lease). `onChange` runs on the watcher's
/// thread (the text widget calls `WidgetCenter.reloadTimelines`). A directory that is removed
/// loses its watch; the next `renew` of a lease on a file in it (the provider's next reload)
/// adds it again.
final class FileWatcher: Sendable {
    private struct Target: Hashable, Sendable {
        var directory: String
        var name: String

        init(_ parts: (directory: String, name: String)) {
            directory = parts.directory
            name = parts.name
        }
    }

    private struct Watches: Sendable {
        var fd: Int32 = -1
        var started = false
        /// Watch descriptor → the file names watched in that directory.
        var names: [Int32: Set<String>] = [:]
        /// Directory → its watch descriptor.
        var directories: [String: Int32] = [:]
        /// Lease → the files it watches (the path, and the file a symbolic link points to).
        var leases: [UInt64: [Target]] = [:]
        var nextLease: UInt64 = 0
        /// Watches removed whose `IN_IGNORED` has not been read yet: that event is no change.
        var removed: Set<Int32> = []
    }

    /// One holder's watch of one file, dropped when the lease is released.
    final class Lease: Sendable {
        let path: String
        private let watcher: FileWatcher
        private let id: UInt64

        fileprivate init(path: String, watcher: FileWatcher, id: UInt64) {
            self.path = path
            self.watcher = watcher
            self.id = id
        }

        /// Watches the file's directory (again, if it went away); see `FileWatcher.watch`.
        ///
        /// - Returns: false when the directory cannot be watched (missing, or no inotify): the
        ///   holder should look again later.
        @discardableResult
        func renew() -> Bool { watcher.watch(path, lease: id) }

        deinit { watcher.release(lease: id) }
    }

    private let watches = Mutex(Watches())
    private let onChange: @Sendable () -> Void

    init(onChange: @escaping @Sendable () -> Void) {
        self.onChange = onChange
    }

    /// A lease on `path`, not yet watching: `renew()` it.
    func lease(_ path: String) -> Lease {
        let id = watches.withLock { state -> UInt64 in
            state.nextLease += 1
            return state.nextLease
        }
        return Lease(path: path, watcher: self, id: id)
    }

    /// The files watched now, as directory → names (for tests and diagnostics).
    var watched: [String: Set<String>] {
        watches.withLock { state in state.directories.mapValues { state.names[$0] ?? [] } }
    }

    /// The inotify descriptor, -1 before the first watch (tests read its watches in
    /// /proc/self/fdinfo).
    var descriptor: Int32 { watches.withLock { $0.fd } }

    /// Watches `path`'s directory for changes to `path` (and, when `path` is a symbolic link,
    /// the directory of the file it points to) for `lease`.
    private func watch(_ path: String, lease: UInt64) -> Bool {
        var targets = [Target(Self.split(path))]
        if let resolved = realpath(path, nil) {
            let real = String(cString: resolved)
            free(resolved)
            if real != path { targets.append(Target(Self.split(real))) }
        }
        let (added, startThread) = watches.withLock { state -> (Bool, Bool) in
            if state.fd < 0 { state.fd = inotify_init1(Int32(IN_CLOEXEC)) }
            guard state.fd >= 0 else { return (false, false) }
            let before = state.leases.updateValue(targets, forKey: lease) ?? []
            var added = true
            for target in targets where state.directories[target.directory] == nil {
                // Not IN_CREATE (an empty file, CLOSE_WRITE follows) nor IN_MODIFY (every write of a file being written).
                let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_ONLYDIR)
                let wd = inotify_add_watch(state.fd, target.directory, mask)
                guard wd >= 0 else { added = false; continue }
                state.removed.remove(wd)
                state.directories[target.directory] = wd
            }
            Self.refresh(Set((before + targets).map(\.directory)), in: &state)
            defer { state.started = true }
            return (added, !state.started)
        }
        if startThread { start() }
        return added
    }

    /// Forgets `lease`'s files; a directory left with none is no longer watched.
    private func release(lease: UInt64) {
        watches.withLock { state in
            guard let targets = state.leases.removeValue(forKey: lease) else { return }
            Self.refresh(Set(targets.map(\.directory)), in: &state)
        }
    }

    /// Sets the names watched in each of `directories` to those the leases name; removes the
    /// watch of a directory no lease names.
    private static func refresh(_ directories: Set<String>, in state: inout Watches) {
        for directory in directories {
            guard let wd = state.directories[directory] else { continue }
            let names = Set(state.leases.values.joined().filter { $0.directory == directory }.map(\.name))
            if names.isEmpty {
                state.directories[directory] = nil
                state.names[wd] = nil
                state.removed.insert(wd)
                inotify_rm_watch(state.fd, wd)
            } else {
                state.names[wd] = names
            }
        }
    }

    /// The directory and file name of `path` ("." for a bare name).
    static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = slash == path.startIndex ? "/" : String(path[..<slash])
        return (directory, String(path[path.index(after: slash)...]))
    }

    private func start() {
        // The thread holds the watcher until its read fails (the descriptor closed).
        _ = HostThread.start(name: FileWatcher.threadName, stackSize: 256 * 1024) { [self] in run() }
    }

    /// The watcher thread's name (/proc/PID/task/TID/comm).
    static let threadName = "wh-watch"

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
                    // A watch this watcher removed (no lease names its directory) is no change.
                    if state.removed.remove(event.wd) != nil { continue }
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
