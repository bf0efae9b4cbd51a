#if canImport(Glibc)
import Glibc
#endif

/// Reads a config (or theme) file with a size limit, so an untrusted path cannot make the
/// host read gigabytes or block on a FIFO.
public enum ConfigFileReader {
    /// Largest file read, in bytes (1 MiB).
    public static let defaultLimit = 1 << 20

    /// Whether anything exists at `path` (following symbolic links).
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// The bytes of the regular file at `path`, at most `limit` of them.
    ///
    /// - Throws: `ConfigLoadError.notAFile` for directories, FIFOs and devices,
    ///   `.tooLarge` past the limit (checked while reading, so a growing file is caught too),
    ///   `.unreadable` with the system's reason otherwise.
    public static func read(_ path: String, limit: Int = defaultLimit) throws(ConfigLoadError) -> [UInt8] {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; it is rejected below anyway.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .unreadable(path: path, reason: String(cString: strerror(errno))) }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw .notAFile(path: path) }
        guard Int(info.st_size) <= limit else { throw .tooLarge(path: path, limit: limit) }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(Int(info.st_size))
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .unreadable(path: path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { return bytes }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw .tooLarge(path: path, limit: limit) }
        }
    }
}
