import WidgetCore

/// A detached thread named `wh-command` with a small stack, for one command run's blocking
/// work (reading its pipes, waiting for its exit), so the run never holds a shared provider
/// thread: four commands that sleep for minutes leave every other panel its threads. Started
/// the host's way (`HostThread`: an alternate signal stack).
enum CommandThread {
    /// A loop over two pipes and a wait: nothing deep.
    static let stackSize = 256 * 1024

    /// Starts `body` on a thread of its own; false when no thread can start.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        if case .success = HostThread.start(name: "wh-command", stackSize: stackSize, body) { return true }
        return false
    }
}
