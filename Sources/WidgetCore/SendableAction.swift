/// A `@Sendable () -> Void` in a struct, for keeping in a `Mutex` (or any generic container).
///
/// A closure stored directly as a generic value (`Mutex<(@Sendable () -> Void)?>`) is
/// reabstracted on every `withLock`: the inout value goes out through a thunk and comes back
/// wrapped in one more, so a closure read as `withLock { $0 }` nests one thunk deeper per read
/// until calling it overflows the stack (issue 22: an extension's log sink, after ~3,300
/// lines). A struct's stored closure keeps one representation; nothing is wrapped.
public struct SendableAction: Sendable {
    public let run: @Sendable () -> Void

    public init(_ run: @escaping @Sendable () -> Void) { self.run = run }
}
