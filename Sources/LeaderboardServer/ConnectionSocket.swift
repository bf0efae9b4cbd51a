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
///
/// It also records whether the connection is idle (waiting for a request, nothing of one read
/// yet) and since when, so that a busy server can close the connection idle the longest
/// (`evictIfIdle`) instead of turning new clients away.
final class ConnectionSocket: Sendable {
    private struct Flags {
        var closed = false
        var evicted = false
        var idleSince: ContinuousClock.Instant?
    }

    let fd: Int32
    private let flags = Mutex(Flags())

    init(fd: Int32) { self.fd = fd }

    /// Wakes whoever blocks on the socket (reads see end of file), unless it was closed.
    func shutdown() {
        flags.withLock { flags in
            if !flags.closed { _ = Glibc.shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Closes the descriptor; later calls (and later `shutdown`s) do nothing.
    func close() {
        flags.withLock { flags in
            if !flags.closed {
                flags.closed = true
                _ = Glibc.close(fd)
            }
        }
    }

    var isClosed: Bool { flags.withLock { $0.closed } }

    /// The connection starts waiting for its next request (its buffer is empty).
    func markIdle(at now: ContinuousClock.Instant = .now) {
        flags.withLock { $0.idleSince = now }
    }

    /// A request has started arriving. False when the connection was evicted meanwhile: then
    /// it must close without answering (the client sees the close of an idle connection,
    /// which HTTP clients expect and retry).
    func markBusy() -> Bool {
        flags.withLock { flags in
            flags.idleSince = nil
            return !flags.evicted
        }
    }

    /// Since when the connection has been idle, or nil while it is busy or closed.
    var idleSince: ContinuousClock.Instant? {
        flags.withLock { $0.closed || $0.evicted ? nil : $0.idleSince }
    }

    /// Shuts the connection down if it is still idle since `since` or earlier; true if it did.
    func evictIfIdle(since cutoff: ContinuousClock.Instant) -> Bool {
        flags.withLock { flags in
            guard !flags.closed, !flags.evicted, let idle = flags.idleSince, idle <= cutoff else { return false }
            flags.evicted = true
            _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
            return true
        }
    }
}
