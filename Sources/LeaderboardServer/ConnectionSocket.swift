import Glibc
import Synchronization

/// An accepted connection's descriptor, owned: it is closed once, and `shutdown` only reaches
/// it while it is still open.
///
/// A bare descriptor number is not an identity: once closed, the kernel hands the same number
/// to the next `open`, `socket` or `accept` anywhere in the process (the dashboard runs curl,
/// SQLite and this server in one process). `HTTPServer.stop()` used to shut down numbers it had
/// collected earlier, so a connection that ended in between could make it cut an unrelated
/// socket. Here `shutdown` and `close` take the same lock and `close` marks the socket closed,
/// so a late `shutdown` finds the flag and does nothing.
///
/// The connection's own thread reads and writes `fd` without the lock: only that thread closes
/// it, after its last use.
final class ConnectionSocket: Sendable {
    let fd: Int32
    private let closed = Mutex(false)

    init(fd: Int32) { self.fd = fd }

    /// Wakes whoever blocks on the socket (reads see end of file), unless it was closed.
    func shutdown() {
        closed.withLock { closed in
            if !closed { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the descriptor; later calls (and later `shutdown`s) do nothing.
    func close() {
        closed.withLock { closed in
            if !closed {
                closed = true
                _ = Glibc.close(fd)
            }
        }
    }

    var isClosed: Bool { closed.withLock { $0 } }
}
