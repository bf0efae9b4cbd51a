import CLinux
import Glibc
import Synchronization

/// A widget kind's own directory, `<state>/containers/<kind>/`, as WidgetKit's app-group
/// container: files written atomically, readable by other kinds too.
///
/// Writes go to a temporary file in the same directory, which is fsynced and renamed over the
/// target: a reader (or a host killed mid-write) sees the old file or the new one, never a
/// mix, and after a power loss too (the one fsync: the data is on disk before the name points
/// at it). The directory is not fsynced: a rename lost to a power loss leaves the old file,
/// which is a state the widget had and can refresh. Thread-safe: concurrent writers of one file
/// leave one of the versions (cache writes, `durable: false`, which share a spare file, take
/// turns under a lock of the process). Errors throw `WidgetContainerError`.
public struct WidgetContainer: Sendable {
    public let kind: String
    /// The container's directory (created on the first write).
    public let path: String

    /// The container of `kind` under `stateDirectory`; throws `.invalidName` for a bad kind.
    public init(kind: String, stateDirectory: String) throws(WidgetContainerError) {
        try Self.validate(kind)
        self.kind = kind
        path = FilePaths.join(FilePaths.join(stateDirectory, "containers"), kind)
    }

    /// Replaces (or creates) file `name` with `bytes`, atomically (a temporary file renamed
    /// over it: a reader sees the old bytes or the new ones) and, when `durable`, with the
    /// temporary file fsynced before the rename, so a power loss leaves the old bytes or the
    /// new ones, never an empty or partial file. `durable: false` (no fsync: no wait for the
    /// disk) is for a cache that a fetch rebuilds: after a power loss it may be empty or short;
    /// it is written by `writeSwapped`.
    public func write(_ bytes: [UInt8], to name: String, durable: Bool = true) throws(WidgetContainerError) {
        try Self.validate(name)
        do { try FilePaths.makeDirectories(path) } catch { throw .fileSystem(error) }
        let target = FilePaths.join(path, name)
        if !durable { return try writeSwapped(bytes, to: target, spare: FilePaths.join(path, Self.spareName(name))) }
        var template = Array(FilePaths.join(path, ".\(name).XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .fileSystem(FileSystemError(operation: "create a file in", path: path, errno: errno)) }
        let temp = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        func fail(_ operation: String, _ e: Int32) -> WidgetContainerError {
            close(fd)
            unlink(temp)
            return .fileSystem(FileSystemError(operation: operation, path: target, errno: e))
        }
        if let error = FilePaths.writeAll(fd, bytes) { throw fail("write", error) }
        if let failure = FilePaths.commit(fd: fd, temporary: temp, to: target, syncData: true) {
            throw .fileSystem(FileSystemError(operation: failure.operation, path: target, errno: failure.errno))
        }
    }

    /// `.NAME.spare`: the file a cache write (`durable: false`) fills and swaps in; after the
    /// swap it holds the previous bytes, and the next write fills it again.
    static func spareName(_ name: String) -> String { ".\(name).spare" }

    /// A cache write: the bytes go into the spare file beside the target (rewritten in place,
    /// never truncated to zero), which is then swapped with the target
    /// (`renameat2(RENAME_EXCHANGE)`) — renamed into place when there is none yet. No fsync, no
    /// new file: a board replaced every few seconds makes no inode, directory entry or bitmap
    /// change, and its page, rewritten while still dirty, reaches the disk only when writeback
    /// comes (~30 s). ext4 would start writing at once a file renamed over another or
    /// truncated to zero (`auto_da_alloc`, its guard for writers that skip the fsync): neither
    /// happens here, so a power loss may leave the file empty or short, which a cache accepts.
    /// A reader that opens the file sees the old bytes or the new ones (a kill mid-write leaves
    /// the spare half written, never swapped in); one that keeps it open across the next write
    /// can see that write's bytes, as with any file rewritten in place.
    ///
    /// Cache writes of a process take turns (`swapping`): two at once would share the spare.
    private func writeSwapped(_ bytes: [UInt8], to target: String, spare: String) throws(WidgetContainerError) {
        try Self.swapping.withLock { _ throws(WidgetContainerError) in try fillAndSwap(bytes, to: target, spare: spare) }
    }

    private static let swapping = Mutex(())

    private func fillAndSwap(_ bytes: [UInt8], to target: String, spare: String) throws(WidgetContainerError) {
        let fd = Self.openSpare(spare)
        guard fd >= 0 else { throw .fileSystem(FileSystemError(operation: "create a file in", path: path, errno: errno)) }
        var failure = FilePaths.writeAll(fd, bytes, at: 0).map { (operation: "write", errno: $0) }
        if failure == nil && ftruncate(fd, off_t(bytes.count)) != 0 { failure = ("write", errno) }
        if close(fd) != 0 && failure == nil { failure = ("write", errno) }
        if failure == nil {
            if FilePaths.isRegularFile(target) && wh_rename_exchange(spare, target) == 0 { return }
            if rename(spare, target) != 0 { failure = ("rename into", errno) }
        }
        if let failure {
            unlink(spare)
            throw .fileSystem(FileSystemError(operation: failure.operation, path: target, errno: failure.errno))
        }
    }

    /// The spare opened for writing: the one there if it is a plain file of ours (regular, one
    /// link), else a new one in its place — whatever else is found under its name (a FIFO, which
    /// would block the open, a file without write permission, a hard link to another file) is
    /// removed first. -1 with `errno` when none can be made.
    private static func openSpare(_ spare: String) -> Int32 {
        let fd = open(spare, O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        if fd >= 0 {
            var info = stat()
            if fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_nlink == 1 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
                return fd
            }
            close(fd)
        }
        unlink(spare)
        return open(spare, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
    }

    /// Largest file `read` returns by default (16 MiB): a file grown by hand or by a bug must
    /// not take the host's memory.
    public static let maximumReadBytes = 16 << 20

    /// The bytes of file `name`, or nil when it does not exist.
    ///
    /// - Throws: `.fileSystem` (with `EFBIG`) for a file larger than `limit` bytes.
    public func read(_ name: String, limit: Int = WidgetContainer.maximumReadBytes) throws(WidgetContainerError) -> [UInt8]? {
        try Self.validate(name)
        let target = FilePaths.join(path, name)
        let fd = open(target, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw .fileSystem(FileSystemError(operation: "open", path: target, errno: errno))
        }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .fileSystem(FileSystemError(operation: "read", path: target, errno: errno))
            }
            if n == 0 { break }
            guard n <= limit - bytes.count else {
                throw .fileSystem(FileSystemError(operation: "read", path: target, errno: EFBIG))
            }
            bytes += chunk[0..<n]
        }
        return bytes
    }

    /// Names of the files in the container, sorted (temporary files of writes in progress are
    /// hidden). Empty when nothing was written yet.
    public func list() -> [String] {
        FilePaths.list(path).filter { !$0.hasPrefix(".") }
    }

    /// Removes file `name`; nothing happens when it does not exist.
    public func remove(_ name: String) throws(WidgetContainerError) {
        try Self.validate(name)
        let target = FilePaths.join(path, name)
        if unlink(target) != 0 && errno != ENOENT {
            throw .fileSystem(FileSystemError(operation: "remove", path: target, errno: errno))
        }
        unlink(FilePaths.join(path, Self.spareName(name)))
        FilePaths.syncDirectory(path)
    }

    /// Removes what writes cut short left in every container under `stateDirectory`: the
    /// temporary files (`.NAME.XXXXXX`) of writes whose host was killed before the rename (a
    /// cache write's `.NAME.spare` stays: it is rewritten before it is used). Only for the
    /// holder of the state directory's lock (nobody else writes there); returns how many.
    @discardableResult
    public static func removeUnfinishedWrites(stateDirectory: String) -> Int {
        let root = FilePaths.join(stateDirectory, "containers")
        var removed = 0
        for kind in FilePaths.list(root) where FilePaths.isSafeName(kind, maximumBytes: 128) {
            let directory = FilePaths.join(root, kind)
            for name in FilePaths.list(directory) where isUnfinishedWrite(name) {
                let path = FilePaths.join(directory, name)
                if FilePaths.isRegularFile(path), unlink(path) == 0 { removed += 1 }
            }
        }
        return removed
    }

    /// `.NAME.XXXXXX` (mkstemp's six characters) for a name `write` accepts.
    static func isUnfinishedWrite(_ name: String) -> Bool {
        guard name.hasPrefix("."), name.utf8.count > 8 else { return false }
        let rest = name.dropFirst()
        let suffix = rest.suffix(7)
        guard suffix.first == ".", suffix.dropFirst().utf8.allSatisfy(FilePaths.isSafeNameByte) else { return false }
        return FilePaths.isSafeName(String(rest.dropLast(7)), maximumBytes: 128)
    }

    /// Throws `.invalidName` unless `name` is 1…128 bytes of `[A-Za-z0-9._-]` not starting with '.'.
    static func validate(_ name: String) throws(WidgetContainerError) {
        if !FilePaths.isSafeName(name, maximumBytes: 128) { throw .invalidName(name) }
    }
}
