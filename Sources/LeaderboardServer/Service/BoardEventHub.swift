import Glibc
import Synchronization

/// The board's version for `GET /events` streams, and the streams waiting for it to change.
///
/// Each stream holds a `Subscription`: a slot (at most `maxStreams` at once) and a pipe that
/// `publish` writes one byte to, so the stream's thread sleeps in `poll` until the board
/// changes, its keep-alive is due, or its client goes. Thread-safe.
///
/// A full hub does not turn newcomers away for good: a stream open for `takeoverAfter` or
/// longer gives its slot to a newcomer (the oldest first). A client that never reads, or one
/// that vanished without closing, would otherwise hold its slot forever on a quiet board;
/// an event-stream client that is ended this way reconnects after `retry:` with its
/// `Last-Event-ID` and misses nothing.
final class BoardEventHub: Sendable {
    /// The board as a stream announces it.
    struct Board: Equatable, Sendable {
        var version: UInt64
        /// ISO 8601, the board's `updated`.
        var updated: String
    }

    private struct Subscriber {
        /// The write end of the stream's pipe.
        var wake: Int32
        var since: ContinuousClock.Instant
    }

    private struct State {
        var board: Board
        var subscribers: [ObjectIdentifier: Subscriber] = [:]
    }

    let maxStreams: Int
    /// How long a stream keeps its slot against a newcomer when the hub is full.
    let takeoverAfter: Duration
    private let state: Mutex<State>

    init(board: Board, maxStreams: Int, takeoverAfter: Duration = .seconds(60)) {
        self.maxStreams = max(0, maxStreams)
        self.takeoverAfter = takeoverAfter
        state = Mutex(State(board: board))
    }

    var board: Board { state.withLock { $0.board } }

    var streamCount: Int { state.withLock { $0.subscribers.count } }

    /// Sets the board and wakes every stream.
    func publish(_ board: Board) {
        state.withLock { s in
            s.board = board
            var byte: UInt8 = 1
            // Non-blocking: a pipe already holding a byte means the stream has a wake-up due.
            for subscriber in s.subscribers.values { _ = write(subscriber.wake, &byte, 1) }
        }
    }

    /// A slot for one stream and the board as it was when the slot was taken, or nil when
    /// `maxStreams` are open, none of them for `takeoverAfter` (or no pipe can be made). Both
    /// are taken under one lock: a change published after this either is in the board returned
    /// or wakes the stream. A stream whose slot is taken is woken and finds itself ended
    /// (`holds` is false).
    func subscribe() -> (subscription: Subscription, board: Board)? {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        let subscription = Subscription(hub: self, read: fds[0], write: fds[1])
        let now = ContinuousClock.now
        let admitted = state.withLock { s -> Board? in
            if s.subscribers.count >= maxStreams {
                guard let (oldest, subscriber) = s.subscribers.min(by: { $0.value.since < $1.value.since }),
                      subscriber.since.duration(to: now) >= takeoverAfter else { return nil }
                // Still in the map, so its pipe is open: the stream wakes and sees it is out.
                var byte: UInt8 = 1
                _ = write(subscriber.wake, &byte, 1)
                s.subscribers[oldest] = nil
            }
            s.subscribers[ObjectIdentifier(subscription)] = Subscriber(wake: fds[1], since: now)
            return s.board
        }
        guard let board = admitted else {
            subscription.admitted = false
            return nil
        }
        return (subscription, board)
    }

    /// Whether `subscription` still has its slot (false once a newcomer took it).
    func holds(_ subscription: Subscription) -> Bool {
        state.withLock { $0.subscribers[ObjectIdentifier(subscription)] != nil }
    }

    fileprivate func remove(_ subscription: Subscription) {
        state.withLock { _ = $0.subscribers.removeValue(forKey: ObjectIdentifier(subscription)) }
    }

    /// One stream's slot and wake-up pipe; released when the last reference goes.
    final class Subscription: @unchecked Sendable {
        private let hub: BoardEventHub
        /// Readable when the board changed since the last `drain()`.
        let signal: Int32
        private let writeEnd: Int32
        fileprivate var admitted = true

        fileprivate init(hub: BoardEventHub, read: Int32, write: Int32) {
            self.hub = hub
            signal = read
            writeEnd = write
        }

        /// Empties the pipe (before reading the board, so no change is missed).
        func drain() {
            var scratch = [UInt8](repeating: 0, count: 64)
            while scratch.withUnsafeMutableBytes({ read(signal, $0.baseAddress, $0.count) }) > 0 {}
        }

        deinit {
            // Out of the hub first, so `publish` never writes to a closed (or reused) descriptor.
            if admitted { hub.remove(self) }
            close(signal)
            close(writeEnd)
        }
    }
}

/// The text of `GET /events` (WHATWG server-sent events).
enum BoardEventText {
    /// Sent first on every stream: the client's reconnection delay.
    static let preamble = Array("retry: 2000\n\n".utf8)
    /// A comment line: keeps proxies and NATs from dropping a quiet stream.
    static let keepAlive = Array(": keep-alive\n\n".utf8)

    static func event(_ board: BoardEventHub.Board) -> [UInt8] {
        Array("event: board\nid: \(board.version)\ndata: {\"version\": \(board.version), \"updated\": \"\(board.updated)\"}\n\n".utf8)
    }

    /// Whether a client that last saw `lastEventID` must be sent the board at once: any ID other
    /// than the board's version (older, or from another run of the server, whose counter began
    /// again), and none at all is not sent (a new client fetches the board anyway).
    static func isStale(lastEventID: String?, board: BoardEventHub.Board) -> Bool {
        guard let lastEventID else { return false }
        return lastEventID != String(board.version)
    }
}
