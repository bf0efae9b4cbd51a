import Glibc

/// A streaming answer's connection, handed to `HTTPResponse.stream` on the connection's thread.
///
/// The connection stays in the `answering` phase for the life of the stream, so a busy server
/// never evicts it as idle; `HTTPServer.stop()` shuts the socket down, which `wait` reports as
/// `.closed`. Only the connection's thread may use it, and only inside the `stream` call.
public struct ResponseStream {
    /// What ended a `wait`.
    public enum Wake: Equatable, Sendable {
        /// `signal` became readable (it is not drained: the caller reads it).
        case signalled
        /// The timeout passed.
        case timedOut
        /// The client closed, the server is stopping, or the socket failed.
        case closed
    }

    let fd: Int32
    let writeTimeout: Duration

    /// Sends `bytes` within the server's `writeTimeout` in all; false when the client is gone or
    /// too slow (the stream should then end).
    public func send(_ bytes: [UInt8]) -> Bool {
        sendAll(fd, bytes, within: writeTimeout)
    }

    /// Turns on TCP keep-alive probes: after `idle` without traffic the kernel probes the peer
    /// every `interval`, and after `count` unanswered probes the socket fails, which `wait`
    /// reports as `.closed`. The probes cost this process no wake-up while the peer answers.
    public func probePeer(idle: Duration, interval: Duration, count: Int32) {
        var on: Int32 = 1
        var idleSeconds = Int32(idle.components.seconds), intervalSeconds = Int32(interval.components.seconds), probes = count
        let size = socklen_t(MemoryLayout<Int32>.size)
        setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, size)
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPIDLE, &idleSeconds, size)
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPINTVL, &intervalSeconds, size)
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_KEEPCNT, &probes, size)
    }

    /// Waits until `signal` is readable, `timeout` passes (nil: no timeout), or the connection
    /// ends. Whatever the client sends meanwhile is read and dropped.
    public func wait(signal: Int32, timeout: Duration?) -> Wake {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: signal, events: Int16(POLLIN), revents: 0)]
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            let wait = deadline.map { milliseconds(until: $0) } ?? -1
            if let deadline, wait == 0, ContinuousClock.now >= deadline { return .timedOut }
            fds[0].revents = 0
            fds[1].revents = 0
            let r = poll(&fds, 2, wait)
            if r < 0 {
                if errno == EINTR { continue }
                return .closed
            }
            if r == 0 { continue }
            if fds[0].revents != 0 {
                let n = scratch.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                if n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN) { return .closed }
            }
            if fds[1].revents != 0 { return .signalled }
        }
    }
}
