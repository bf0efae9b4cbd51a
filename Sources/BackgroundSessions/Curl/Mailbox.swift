import CCurl
import Glibc
import Synchronization

extension CurlTransport {
    enum Command: Sendable {
        case start(TransferID, TransferRequest, @Sendable (TransferEvent) -> Void)
        case cancel(TransferID)
        /// Ends wait number `wait` of a transfer now (a later wait of the same transfer is not cut).
        case retryNow(TransferID, wait: UInt64)
        /// Event streams (Push/EventStreams.swift).
        case openStream(EventStreamID, String, String, EventStreamConfiguration, @Sendable (EventStreamUpdate) -> Void)
        case closeStream(EventStreamID)
        /// Connections of other protocols on the same thread (Sockets/NetworkSockets.swift).
        case watchSocket(NetworkSocketID, any NetworkSocketClient)
        case unwatchSocket(NetworkSocketID)
        case shutdown
    }

    /// A transfer's retry wait as `retryNow` sees it.
    struct RetryWait {
        let until: ContinuousClock.Instant
        /// The server's `Retry-After`, which `retryNow` honours.
        let isRetryAfter: Bool
        /// Counts the transfer's waits, so a late `retryNow` cannot cut a newer one.
        let number: UInt64
    }

    struct Shared {
        var commands: [Command] = []
        var running = true
        var nextID: UInt64 = 1
        /// Transfers waiting to retry; written by the network thread as waits begin and end.
        var waits: [TransferID: RetryWait] = [:]
        var threadID: Int32?
        var thread: pthread_t?
    }

    /// The multi handle as a value that may cross threads: only `curl_multi_wakeup` is called
    /// on it from other threads (documented thread-safe), and only under the mailbox's
    /// `wakeable` lock while the handle has not been cleaned up.
    struct Multi: @unchecked Sendable {
        let handle: UnsafeMutableRawPointer
    }
}

/// Commands from callers to the network thread. Owned by the transport and the thread alike,
/// so the thread never depends on the transport object (whose last reference may be dropped
/// on any thread).
final class Mailbox: Sendable {
    let multi: CurlTransport.Multi
    let clock: any TransportClock
    let shared = Mutex(CurlTransport.Shared())
    /// False once the network thread is about to clean the multi handle up. Callers wake the
    /// thread under this lock, after releasing `shared`'s: woken while `shared` was still
    /// held, the thread went to sleep on it at once and had to be woken again (two more
    /// switches a command, one a fetch; README "Performance", figure 8).
    private let wakeable = Mutex(true)

    init(multi: CurlTransport.Multi, clock: any TransportClock) {
        self.multi = multi
        self.clock = clock
    }

    /// Queues a command and wakes the thread; false once the thread has stopped.
    func send(_ command: CurlTransport.Command) -> Bool {
        let queued = shared.withLock { s in
            guard s.running else { return false }
            s.commands.append(command)
            return true
        }
        if queued { wake() }
        return queued
    }

    /// Wakes the network thread from `curl_multi_poll` (or makes its next poll return at once).
    private func wake() {
        wakeable.withLock { if $0 { curl_multi_wakeup(multi.handle) } }
    }

    /// Called by the network thread before it cleans the multi handle up: no wake-up after this.
    func endWakeups() {
        wakeable.withLock { $0 = false }
    }

    /// Cuts a backoff short (wakes the thread), or reports why not; see `HTTPTransport.retryNow`.
    func retryNow(_ id: TransferID) -> RetryNowResult {
        let result = shared.withLock { s -> RetryNowResult in
            guard s.running, let wait = s.waits[id] else { return .notWaiting }
            if wait.isRetryAfter {
                return .honouringRetryAfter(remaining: max(.zero, clock.now.duration(to: wait.until)))
            }
            // Forgotten here, so a second call answers `.notWaiting` like any attempt under way.
            s.waits[id] = nil
            s.commands.append(.retryNow(id, wait: wait.number))
            return .retrying
        }
        if case .retrying = result { wake() }
        return result
    }

    /// A transfer began waiting to retry (before its `.retrying` event is reported).
    func waitStarted(_ id: TransferID, _ wait: CurlTransport.RetryWait) {
        shared.withLock { $0.waits[id] = wait }
    }

    /// A transfer stopped waiting (its attempt starts, or it was cancelled).
    func waitEnded(_ id: TransferID) {
        shared.withLock { _ = $0.waits.removeValue(forKey: id) }
    }

    func threadStarted() {
        let tid = wh_gettid()
        shared.withLock { $0.threadID = tid }
    }

    func takeCommands() -> [CurlTransport.Command] {
        shared.withLock { s in
            defer { s.commands = [] }
            return s.commands
        }
    }

    /// Marks the transport stopped; commands sent after this fail at once.
    func markStopped() -> [CurlTransport.Command] {
        shared.withLock { s in
            s.running = false
            s.waits = [:]
            defer { s.commands = [] }
            return s.commands
        }
    }
}

