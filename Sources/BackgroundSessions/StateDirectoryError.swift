/// Why a state directory (or a directory of background sessions in it) is not used.
public enum StateDirectoryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Owned by another user: they control what is in it, so nothing of ours goes there.
    case notOwned(path: String, owner: UInt32)
    case notADirectory(String)
    /// A directory the host makes itself (`sessions`, a session's) is a symbolic link.
    case symbolicLink(String)
    case fileSystem(FileSystemError)

    public var description: String {
        switch self {
        case .notOwned(let path, let owner):
            "the state directory \(path) belongs to user \(owner), not to you; use one of your own (--state-dir)"
        case .notADirectory(let path): "\(path) is not a directory"
        case .symbolicLink(let path): "\(path) is a symbolic link; background sessions use only a real directory there"
        case .fileSystem(let error): error.description
        }
    }
}
