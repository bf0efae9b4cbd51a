/// The bytes a command wrote to stdout and stderr (interleaved as they arrived), bounded:
/// the first or the last `limit` bytes are kept, the rest is counted and dropped.
///
/// The child is always read to the end (or to its timeout) so it never blocks on a full pipe;
/// only what is kept costs memory (at most twice `limit` while a tail is trimmed).
struct CapturedOutput: Sendable, Equatable {
    enum Keep: String, Sendable { case head, tail }

    let limit: Int
    let keep: Keep
    private(set) var bytes: [UInt8] = []
    /// Every byte read, kept or not.
    private(set) var total: Int = 0

    init(limit: Int, keep: Keep) {
        self.limit = max(0, limit)
        self.keep = keep
    }

    /// True when bytes were dropped.
    var isTruncated: Bool { total > bytes.count }

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        let (sum, overflow) = total.addingReportingOverflow(chunk.count)
        total = overflow ? Int.max : sum
        switch keep {
        case .head:
            let room = limit - bytes.count
            if room > 0 { bytes.append(contentsOf: chunk.prefix(room)) }
        case .tail:
            guard limit > 0 else { return }
            if chunk.count >= limit {
                bytes = Array(chunk.suffix(limit))
            } else {
                bytes.append(contentsOf: chunk)
                // Trim once the buffer holds twice the limit: each byte is moved at most once.
                if bytes.count >= 2 * limit { bytes.removeFirst(bytes.count - limit) }
            }
        }
    }

    /// The kept bytes (the last `limit` for a tail), as UTF-8 with invalid bytes as U+FFFD.
    var text: String {
        let kept = keep == .tail && bytes.count > limit ? bytes.suffix(limit) : bytes[...]
        return String(decoding: kept, as: UTF8.self)
    }
}
