/// Why a widget container could not be used.
public enum WidgetContainerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A kind or file name that is empty, too long, starts with a dot, or has a character
    /// outside `[A-Za-z0-9._-]` (so it can never leave the container's directory).
    case invalidName(String)
    case fileSystem(FileSystemError)

    public var description: String {
        switch self {
        case .invalidName(let name): "not a valid container name: \"\(name)\" (use letters, digits, '.', '_', '-'; no leading dot)"
        case .fileSystem(let error): error.description
        }
    }
}
