import Glibc

/// A file operation that failed, with the path and the system's reason.
public struct FileSystemError: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var errno: Int32

    public init(operation: String, path: String, errno: Int32) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String { "cannot \(operation) \(path): \(String(cString: strerror(errno)))" }
}
