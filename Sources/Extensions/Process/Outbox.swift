#if canImport(Glibc)
import Glibc
#endif

/// An extension's stdin and the bytes the host has still to write to it, whole messages in
/// order (the first perhaps partly written).
///
/// Writing never waits for an extension to read: what fits in the pipe goes at once, the rest
/// waits here and the connection's reader thread writes it when the pipe has room. So no lock
/// is ever held while a pipe is full, and closing stdin (a stop, the host quitting) is
/// immediate whatever the extension does. Bounded: an extension that reads nothing gets no
/// more than `maximumBytes` queued; messages past that are refused (their requests time out).
struct Outbox {
    /// The most bytes kept waiting.
    static let maximumBytes = 4 << 20

    /// The write end (non-blocking); -1 once closed.
    private var descriptor: Int32
    private var bytes: [UInt8] = []
    private var offset = 0
    /// Nothing more is written: stdin is closed, or broken (the extension closed it).
    private(set) var closed = false

    init(descriptor: Int32) {
        self.descriptor = descriptor
        closed = descriptor < 0
    }

    var isEmpty: Bool { offset == bytes.count }

    /// The descriptor to poll for room: only while bytes wait.
    var waitingDescriptor: Int32 { closed || isEmpty ? -1 : descriptor }

    /// Queues `line` and writes what fits without waiting; false when it was refused (stdin
    /// closed or broken, or the outbox full — an empty one takes any message).
    mutating func send(_ line: String) -> Bool {
        guard !closed, isEmpty || bytes.count - offset + line.utf8.count <= Self.maximumBytes else { return false }
        bytes.append(contentsOf: line.utf8)
        flush()
        return !closed
    }

    /// Writes what the pipe takes now; a broken pipe (the extension closed its stdin) stops
    /// the writing and drops what waited.
    mutating func flush() {
        guard !closed else { return }
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
                continue
            }
            if written < 0 && errno == EINTR { continue }
            if written < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            drop()
            return
        }
        if offset == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
            offset = 0
        } else if offset >= 64 * 1024 {
            bytes.removeFirst(offset)
            offset = 0
        }
    }

    /// Closes stdin now (once); what waited is dropped.
    mutating func close() {
        drop()
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    private mutating func drop() {
        closed = true
        bytes = []
        offset = 0
    }
}
