#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions

/// The `.downloads` folder of an extension's data directory, where the host keeps the bodies
/// of its downloads until it answers `sessionEvents`.
///
/// The extension can write its data directory, so anything there may have been replaced by a
/// link: the host follows the state directory's rules (`WidgetContainer`) here too. The data
/// directory and `.downloads` are opened without following a link (`O_NOFOLLOW`) and must be
/// directories of this user; every file is then made and removed relative to that descriptor
/// (`linkat`, `openat` with `O_EXCL | O_NOFOLLOW`, `unlinkat`), and only a regular file is
/// removed. Whatever is refused is left in place and said in the log, never written through
/// or deleted.
struct ExtensionDownloads: Sendable {
    static let folderName = ".downloads"

    /// The data directory (`STATE/extensions/NAME`).
    let dataDirectory: String
    /// Says why a file was not kept or not removed.
    let log: @Sendable (String) -> Void

    /// The path a body named `name` has once placed.
    func path(of name: String) -> String { "\(dataDirectory)/\(Self.folderName)/\(name)" }

    /// Puts the body at `source` (the session's file, the host's own) into `.downloads` as
    /// `name`: a hard link, else a copy. Returns its path, or nil (said in the log) when it
    /// cannot be kept there.
    func place(_ source: String, as name: String, task: Int) -> String? {
        let folder: Int32
        switch Self.openFolder(dataDirectory, create: true) {
        case .success(let fd): folder = fd
        case .failure(let reason):
            log("download \(task) not kept: \(reason); nothing written through it")
            return nil
        }
        defer { close(folder) }
        // A leftover of an earlier host (its own file, or whatever the extension put there):
        // `unlinkat` removes the name itself, never what a link points to.
        var info = stat()
        if fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) != S_IFDIR {
            unlinkat(folder, name, 0)
        }
        if linkat(AT_FDCWD, source, folder, name, 0) != 0 && !Self.copy(source, into: folder, as: name) {
            log("download \(task) not kept: cannot write \(path(of: name)) (\(String(cString: strerror(errno))))")
            return nil
        }
        return path(of: name)
    }

    /// Removes the bodies at `files` (paths `place` returned) once the extension has answered.
    /// A file that is no longer a regular file in the host's `.downloads` is left in place.
    static func remove(_ files: [String], log: @Sendable (String) -> Void) {
        for file in files {
            let parts = file.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count >= 3, parts[parts.count - 2] == folderName[...] else { continue }
            let name = String(parts[parts.count - 1])
            let dataDirectory = parts.dropLast(2).joined(separator: "/")
            let folder: Int32
            switch openFolder(dataDirectory, create: false) {
            case .success(let fd): folder = fd
            case .failure(let reason):
                log("\(file) left in place: \(reason)")
                continue
            }
            defer { close(folder) }
            var info = stat()
            guard fstatat(folder, name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }  // gone already
            guard (info.st_mode & S_IFMT) == S_IFREG else {
                log("\(file) left in place: not a regular file (a link?)")
                continue
            }
            unlinkat(folder, name, 0)
        }
    }

    /// Why `.downloads` cannot be used.
    struct Refusal: Error, CustomStringConvertible {
        var description: String
    }

    /// `.downloads` of `dataDirectory`, opened (and made, with `create`) without following a
    /// link at either step: a descriptor of a directory of this user, or why not.
    private static func openFolder(_ dataDirectory: String, create: Bool) -> Result<Int32, Refusal> {
        let flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
        let data = open(dataDirectory, flags)
        guard data >= 0 else {
            return .failure(Refusal(description: "\(dataDirectory) is not a directory of the host's (\(String(cString: strerror(errno))))"))
        }
        defer { close(data) }
        if create { mkdirat(data, folderName, 0o700) }
        let folder = openat(data, folderName, flags)
        guard folder >= 0 else {
            let reason = errno == ELOOP || errno == ENOTDIR ? "a link or a file" : String(cString: strerror(errno))
            return .failure(Refusal(description: "\(dataDirectory)/\(folderName) is not a directory (\(reason))"))
        }
        var info = stat()
        guard fstat(folder, &info) == 0, info.st_uid == geteuid() else {
            close(folder)
            return .failure(Refusal(description: "\(dataDirectory)/\(folderName) is not the host user's"))
        }
        return .success(folder)
    }

    /// Copies `source` into a new file `name` of `folder` (never an existing one, never
    /// through a link).
    private static func copy(_ source: String, into folder: Int32, as name: String) -> Bool {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return false }
        defer { close(input) }
        let output = openat(folder, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { return false }
        defer { close(output) }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(input, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return false }
            if count == 0 { return true }
            guard FilePaths.writeAll(output, chunk[..<count]) == nil else { return false }
        }
    }
}
