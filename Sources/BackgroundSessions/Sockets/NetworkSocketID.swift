/// Identifies one client watched by `CurlTransport.watch(_:)`.
public struct NetworkSocketID: Hashable, Sendable {
    public let rawValue: UInt64
}
