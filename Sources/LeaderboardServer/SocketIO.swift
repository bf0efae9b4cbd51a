import Glibc

/// Milliseconds from now until `deadline`, rounded up, at least 0, at most Int32.max.
func milliseconds(until deadline: ContinuousClock.Instant) -> Int32 {
    let left = ContinuousClock.now.duration(to: deadline)
    if left <= .zero { return 0 }
    let (s, atto) = left.components
    let ms = s * 1000 + (atto + 999_999_999_999_999) / 1_000_000_000_000_000
    return Int32(clamping: ms)
}

/// Sends every byte (MSG_NOSIGNAL, retrying on EINTR); false on error, on a send timeout
/// (`SO_SNDTIMEO`: no progress for that long), or once `within` has passed in all.
///
/// `within` bounds a client that reads, but slowly (a few bytes now and then reset the
/// send timeout each time): the answer is abandoned, the connection closed.
func sendAll(_ fd: Int32, _ bytes: [UInt8], within timeout: Duration? = nil) -> Bool {
    let deadline = timeout.map { ContinuousClock.now + $0 }
    var offset = 0
    return bytes.withUnsafeBytes { raw in
        while offset < raw.count {
            if let deadline, ContinuousClock.now >= deadline { return false }
            let n = send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            if n < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += n
        }
        return true
    }
}
