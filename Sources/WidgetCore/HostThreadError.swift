/// A thread that could not start: the `pthread_create` error number.
public struct HostThreadError: Error, Equatable, Sendable {
    public var code: Int32
    public init(code: Int32) { self.code = code }
}
