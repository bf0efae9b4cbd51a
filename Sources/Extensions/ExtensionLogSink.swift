/// Where the extensions' log lines go, boxed so it can live in a `Mutex`: a closure kept there
/// directly gained one reabstraction thunk per `withLock { $0 }` read (see `SendableAction`),
/// and after ~3,300 log lines the nested thunks overflowed the reader thread's stack.
struct ExtensionLogSink: Sendable {
    let write: @Sendable (ExtensionLogLevel, String) -> Void

    static let nowhere = ExtensionLogSink { _, _ in }
}
