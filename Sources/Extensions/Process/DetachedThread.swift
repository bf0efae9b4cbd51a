import WidgetCore

/// Named detached threads for the extension host's blocking work: a connection's readers
/// (`wh-ext-read`, `wh-ext-err`), its stop (`wh-ext-stop`) and session deliveries
/// (`wh-ext-deliver`). Started the host's way (`HostThread`: an alternate signal stack).
enum DetachedThread {
    /// The stack of a thread that parses extension JSON: `wh-ext-read` classifies each line
    /// with the recursive `JSONParser` (up to `IncomingMessage.maximumDepth` levels). The
    /// deepest line accepted takes 367 KiB in the debug build, under a fifth of this
    /// (`ThreadStackTests`); 256 KiB overflowed at 130 levels.
    static let parsingStackSize = 2 * 1024 * 1024
    /// The other threads: a loop over a pipe or a wait, nothing deep.
    static let defaultStackSize = 256 * 1024

    /// Starts a detached thread named `name` (at most 15 characters); false when none can start.
    static func start(name: String, stackSize: Int = defaultStackSize, _ body: @escaping @Sendable () -> Void) -> Bool {
        if case .success = HostThread.start(name: name, stackSize: stackSize, body) { return true }
        return false
    }
}
