import Glibc
import Synchronization

/// A loopback server that answers every connection with the same raw bytes, for answers the
/// real `HTTPServer` will not send (a hostile status line, say).
///
/// Each connection: the request is read up to its blank line (bounded, 2 s at most), the
/// canned bytes are written, the connection is closed. One thread of its own; `stop()` ends it.
final class CannedHTTPServer: @unchecked Sendable {
    let port: UInt16
    private let listener: Int32
    private let stopped = Flag()
    private var thread = pthread_t()

    /// Starts on 127.0.0.1 and a free port, answering with `response`.
    init(response: [UInt8]) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure.socket(errno) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound, listen(fd, 16) == 0 else {
            close(fd)
            throw Failure.socket(errno)
        }
        listener = fd
        port = UInt16(bigEndian: addr.sin_port)
        let context = Unmanaged.passRetained(Loop(listener: fd, response: response, stopped: stopped)).toOpaque()
        guard pthread_create(&thread, nil, { raw in
            Unmanaged<Loop>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context) == 0 else {
            Unmanaged<Loop>.fromOpaque(context).release()
            close(fd)
            throw Failure.thread
        }
    }

    var url: String { "http://127.0.0.1:\(port)" }

    /// Stops accepting and waits for the thread to end.
    func stop() {
        guard stopped.raise() else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        pthread_join(thread, nil)
        close(listener)
    }

    enum Failure: Error { case socket(Int32), thread }

    private final class Loop: @unchecked Sendable {
        let listener: Int32
        let response: [UInt8]
        let stopped: Flag

        init(listener: Int32, response: [UInt8], stopped: Flag) {
            self.listener = listener
            self.response = response
            self.stopped = stopped
        }

        func run() {
            while !stopped.isRaised {
                let fd = accept(listener, nil, nil)
                guard fd >= 0 else {
                    if errno == EINTR { continue }
                    return
                }
                answer(fd)
            }
        }

        private func answer(_ fd: Int32) {
            defer { close(fd) }
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while received.count < 65_536, !received.ends(with: [13, 10, 13, 10]) {
                let n = recv(fd, &chunk, chunk.count, 0)
                guard n > 0 else { break }
                received += chunk[0..<n]
            }
            var offset = 0
            while offset < response.count {
                let n = response[offset...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { break }
                offset += n
            }
            shutdown(fd, Int32(SHUT_WR))
        }
    }
}

/// A flag raised once, from any thread.
private final class Flag: Sendable {
    private let value = Mutex(false)
    var isRaised: Bool { value.withLock { $0 } }
    /// Raises the flag; true for the call that raised it.
    func raise() -> Bool {
        value.withLock { v in
            defer { v = true }
            return !v
        }
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
