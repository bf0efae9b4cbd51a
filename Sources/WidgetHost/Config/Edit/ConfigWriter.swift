#if canImport(Glibc)
import Glibc
#endif

/// Why a config file could not be written; the message names the file and the system's reason.
public struct ConfigWriteError: Error, Sendable, Equatable, CustomStringConvertible {
    public var description: String
}

/// Replaces a file as an editor should (DESIGN.md §10, STYLE.md 17): the new bytes go to a
/// temporary file in the same directory, are flushed with `fsync`, and take the file's name by
/// `rename`, so a crash leaves the old file or the new one, never half of one; the file that
/// was there is kept as `NAME.bak` (written the same way), and the directory is synced so the
/// rename lasts. A file's permission bits are kept; a new one is `0644` (less the umask).
public enum ConfigWriter {
    /// Writes `bytes` at `path`, first keeping what is there now as `path.bak`.
    ///
    /// - Parameter createDirectory: make the missing directories of `path` first (the
    ///   `$XDG_CONFIG_HOME/widgethost` of a first save).
    /// - Throws: `ConfigWriteError` naming the file and the reason (a read-only directory says
    ///   "Permission denied" or "Read-only file system"); the file is then as it was.
    public static func replace(_ given: String, with bytes: [UInt8], createDirectory: Bool = false) throws(ConfigWriteError) {
        // A config that is a link (into a dotfiles repository, say) is written where it really
        // lives: a rename onto the link would replace the link with a file of its own.
        let path = realpath(given, nil).map { resolved in
            defer { free(resolved) }
            return String(cString: resolved)
        } ?? given
        let directory = directoryName(of: path)
        if createDirectory { try makeDirectories(directory) }
        var info = stat()
        if stat(path, &info) == 0 {
            guard (info.st_mode & S_IFMT) == S_IFREG else { throw ConfigWriteError(description: "\(path): not a regular file") }
            let previous: [UInt8]
            do throws(ConfigLoadError) {
                previous = try ConfigFileReader.read(path)
            } catch {
                throw ConfigWriteError(description: "cannot keep the previous file: \(error)")
            }
            try write(previous, to: path + ".bak", mode: info.st_mode & 0o7777, in: directory)
            try write(bytes, to: path, mode: info.st_mode & 0o7777, in: directory)
        } else {
            try write(bytes, to: path, mode: nil, in: directory)
        }
    }

    /// The atomic step: temporary file, write, fsync, rename, directory fsync.
    private static func write(_ bytes: [UInt8], to path: String, mode: mode_t?, in directory: String) throws(ConfigWriteError) {
        func failure(_ what: String) -> ConfigWriteError {
            ConfigWriteError(description: "cannot write \(path): \(what): \(String(cString: strerror(errno)))")
        }
        let name = path.split(separator: "/").last.map(String.init) ?? "config.json"
        var template = Array((directory + "/." + name + ".XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw failure("cannot create a file in \(directory)") }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var done = false
        defer {
            if !done { unlink(temporary) }
        }
        let permissions: mode_t
        if let mode { permissions = mode } else {
            let mask = umask(0o022)
            umask(mask)
            permissions = 0o644 & ~mask
        }
        fchmod(fd, permissions)
        var rest = bytes[...]
        while !rest.isEmpty {
            let count = rest.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let error = failure("writing")
                close(fd)
                throw error
            }
            rest = rest.dropFirst(count)
        }
        guard fsync(fd) == 0 else {
            let error = failure("fsync")
            close(fd)
            throw error
        }
        close(fd)
        guard rename(temporary, path) == 0 else { throw failure("rename") }
        done = true
        let directoryFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if directoryFD >= 0 {
            fsync(directoryFD)
            close(directoryFD)
        }
    }

    private static func makeDirectories(_ directory: String) throws(ConfigWriteError) {
        var path = directory.hasPrefix("/") ? "" : "."
        for component in directory.split(separator: "/") {
            path += "/" + component
            if mkdir(path, 0o755) != 0, errno != EEXIST {
                throw ConfigWriteError(description: "cannot create the directory \(path): \(String(cString: strerror(errno)))")
            }
        }
    }

    static func directoryName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }
}
