/// What a `NetworkSocketClient` waits for: a descriptor (none while it waits to reconnect),
/// whether for writing too, and when to be called regardless (keepalive, a reconnect, a
/// collapsed push) — nil: only when the descriptor is ready, so a quiet connection costs no
/// wake-up.
public struct NetworkSocketInterest: Sendable, Equatable {
    public var descriptor: Int32?
    public var wantsWrite: Bool
    public var deadline: ContinuousClock.Instant?

    public init(descriptor: Int32? = nil, wantsWrite: Bool = false, deadline: ContinuousClock.Instant? = nil) {
        self.descriptor = descriptor
        self.wantsWrite = wantsWrite
        self.deadline = deadline
    }
}
