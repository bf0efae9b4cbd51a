#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions

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

    /// The atomic step: temporary file, write, fsync, rename, directory fsync
    /// (`FilePaths.commit`). A new file's bits are `0644` less the umask, as `open` gives them;
    /// an existing file's are set again exactly (`fchmod`: the umask may have taken some away).
    private static func write(_ bytes: [UInt8], to path: String, mode: mode_t?, in directory: String) throws(ConfigWriteError) {
        func failure(_ what: String, _ code: Int32) -> ConfigWriteError {
            ConfigWriteError(description: "cannot write \(path): \(what): \(String(cString: strerror(code)))")
        }
        let name = path.split(separator: "/").last.map(String.init) ?? "config.json"
        var fd: Int32 = -1
        var temporary = ""
        for attempt in 0..<100 {  // a name left by a killed save is skipped
            temporary = directory + "/." + name + ".\(getpid()).\(attempt)"
            fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode ?? 0o644)
            if fd >= 0 || errno != EEXIST { break }
        }
        guard fd >= 0 else { throw failure("cannot create a file in \(directory)", errno) }
        var failed: (what: String, code: Int32)?
        if let mode, fchmod(fd, mode) != 0 { failed = ("chmod", errno) }
        if failed == nil, let code = FilePaths.writeAll(fd, bytes) { failed = ("writing", code) }
        if let failed {
            close(fd)
            unlink(temporary)
            throw failure(failed.what, failed.code)
        }
        if let committed = FilePaths.commit(fd: fd, temporary: temporary, to: path, syncData: true) {
            throw failure(committed.operation, committed.errno)
        }
        FilePaths.syncDirectory(directory)
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
