import Glibc

/// Makes a state directory safe to keep the journal, the lock and session files in.
///
/// The directory is created private (0700) when missing. An existing one of ours that others
/// could read or write (an older 0755 or 0777 one) is tightened to 0700 rather than refused:
/// it is ours, tightening loses nothing, and refusing would lock a user out of their own
/// state. One owned by another user is refused: we cannot tighten it, and whoever owns it
/// controls what is in it.
enum StateDirectory {
    /// Creates or tightens `path` (see the type); throws `StateDirectoryError`.
    static func prepare(_ path: String) throws(StateDirectoryError) {
        do { try FilePaths.makeDirectories(path) } catch { throw .fileSystem(error) }
        // `stat`, not `lstat`: the state directory itself may be a link the user made
        // (dotfiles); what it points to is what must be ours and private.
        var info = stat()
        guard stat(path, &info) == 0 else { throw .fileSystem(FileSystemError(operation: "use", path: path, errno: errno)) }
        guard (info.st_mode & S_IFMT) == S_IFDIR else { throw .notADirectory(path) }
        guard info.st_uid == geteuid() else { throw .notOwned(path: path, owner: info.st_uid) }
        if info.st_mode & 0o077 != 0 && chmod(path, 0o700) != 0 {
            throw .fileSystem(FileSystemError(operation: "make private (0700)", path: path, errno: errno))
        }
    }
}
