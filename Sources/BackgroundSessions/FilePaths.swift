import Glibc

/// Small file-system helpers on Glibc: joining paths, making directories, listing, fsync.
public enum FilePaths {
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// `mkdir -p`, private to the user (0700) for the directories it creates; throws when a
    /// component cannot be made.
    public static func makeDirectories(_ path: String) throws(FileSystemError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o700) != 0 && errno != EEXIST {
                throw FileSystemError(operation: "create directory", path: prefix, errno: errno)
            }
            prefix += "/"
        }
    }

    /// Writes every byte of `bytes` to `fd` (from its current offset, or with `at` from that
    /// offset on, by `pwrite`), again after EINTR and short writes; the errno of the write that
    /// failed, or nil.
    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], at start: Int? = nil) -> Int32? {
        writeAll(fd, bytes[...], at: start)
    }

    /// `writeAll` of a slice.
    public static func writeAll(_ fd: Int32, _ bytes: ArraySlice<UInt8>, at start: Int? = nil) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let rest = UnsafeRawBufferPointer(rebasing: buffer[offset...])
                let n = start.map { pwrite(fd, rest.baseAddress, rest.count, off_t($0 + offset)) }
                    ?? Glibc.write(fd, rest.baseAddress, rest.count)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                if n == 0 { return EIO }
                offset += n
            }
            return nil
        }
    }

    /// Names in `directory` (not `.`/`..`), sorted; empty when it does not exist.
    public static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// A regular file, not followed if it is a symbolic link.
    static func isRegularFile(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
    }

    static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    /// Finishes an atomic replace: fsyncs (when `syncData`) and closes `fd` (the temporary file
    /// at `temporary`, in the target's directory) and renames it over `target`, so a reader (or
    /// a host killed mid-write) sees the old file or the new one. The directory is not fsynced
    /// (docs/decisions.md "Journal durability" says why). On failure the temporary file is
    /// removed and the failed step (`"fsync"` for a write, `"rename into"`) and its errno returned.
    /// The one atomic write of the package (containers, downloads) and of the extensions' ledger.
    public static func commit(fd: Int32, temporary: String, to target: String, syncData: Bool) -> (operation: String, errno: Int32)? {
        var failure: Int32 = 0
        if syncData && fsync(fd) != 0 { failure = errno }
        if close(fd) != 0 && failure == 0 { failure = errno }
        if failure != 0 {
            unlink(temporary)
            return ("fsync", failure)
        }
        guard rename(temporary, target) == 0 else {
            let failure = errno
            unlink(temporary)
            return ("rename into", failure)
        }
        return nil
    }

    /// fsyncs a directory so a rename or unlink in it is durable.
    public static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }

    /// `[A-Za-z0-9._-]`: the bytes a file name made from untrusted text may hold.
    static func isSafeNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
            || byte == 0x2D || byte == 0x5F || byte == 0x2E
    }

    /// Whether `name` can name a file in a directory and nothing else: 1…`maximumBytes` bytes
    /// of `[A-Za-z0-9._-]`, not starting with '.' (so never `.`, `..` or a hidden file). The one
    /// rule for container names, container kinds and session identifiers used as file names.
    public static func isSafeName(_ name: String, maximumBytes: Int) -> Bool {
        !name.isEmpty && name.utf8.count <= maximumBytes && !name.hasPrefix(".") && name.utf8.allSatisfy(isSafeNameByte)
    }

    /// A directory name for a session identifier: bytes outside `[A-Za-z0-9._-]` become `%XX`,
    /// a leading dot too, so no identifier can name `..` or a hidden file; "" becomes `%`.
    static func component(forIdentifier identifier: String) -> String {
        if identifier.isEmpty { return "%" }
        var out = ""
        for (index, byte) in identifier.utf8.enumerated() {
            let plain = isSafeNameByte(byte) && (byte != 0x2E || index > 0)
            if plain {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}
