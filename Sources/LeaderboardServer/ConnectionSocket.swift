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
/// It also records what the connection is doing and since when — idle (waiting for a request,
/// nothing of one read yet), reading a request, or answering — so that a busy server can close
/// the connection that has held its place the longest for nothing (`evict(idleSince:readingSince:)`)
/// instead of turning new clients away.
final class ConnectionSocket: Sendable {
    enum Phase: Equatable {
        case idle(since: ContinuousClock.Instant)
        case reading(since: ContinuousClock.Instant)
        case answering
    }

    private struct Flags {
        var closed = false
        var evicted = false
        var phase = Phase.answering
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

    /// Enters `phase` (with its start time). False when the connection was evicted: then it
    /// must close without answering (the client sees a connection closed before its request
    /// was taken, which HTTP clients expect of idle connections and retry).
    func enter(_ phase: Phase) -> Bool {
        flags.withLock { flags in
            flags.phase = phase
            return !flags.evicted
        }
    }

    /// What the connection is doing, or nil once it is closed or evicted.
    var phase: Phase? {
        flags.withLock { $0.closed || $0.evicted ? nil : $0.phase }
    }

    /// Shuts the connection down if it is idle since `idleSince` or earlier, or reading one
    /// request since `readingSince` or earlier; true if it did. Never cuts an answer.
    func evict(idleSince: ContinuousClock.Instant, readingSince: ContinuousClock.Instant) -> Bool {
        flags.withLock { flags in
            guard !flags.closed, !flags.evicted else { return false }
            switch flags.phase {
            case .idle(let since) where since <= idleSince: break
            case .reading(let since) where since <= readingSince: break
            default: return false
            }
            flags.evicted = true
            _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
            return true
        }
    }
}
