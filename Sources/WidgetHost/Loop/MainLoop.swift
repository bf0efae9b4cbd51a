#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Dispatch
import FoundationEssentials
import BackgroundSessions
import Synchronization
import WidgetCore

/// The dashboard's event loop: the main thread sleeping in `epoll_wait` until a descriptor is
/// ready — stdin, a signalfd, one wall-clock timerfd, inotify, the mailbox's eventfd (what
/// other threads post: `doorbell`), and the main dispatch queue's wake-up descriptor (Swift's
/// own jobs for the main actor: the on-loop provider executor, the async entry point).
///
/// Why not `dispatchMain()` and Dispatch sources: on Linux, Dispatch sources and timers are
/// serviced by a manager thread from Dispatch's worker pool, and the first worker thread
/// starts a pool monitor that wakes the process every second for the rest of its life. This
/// loop keeps Dispatch to the main queue, drained here on the main thread (as
/// CoreFoundation's run loop does), so an idle dashboard makes no wake-ups at all.
/// Everything registered here runs on the main thread, which is the main actor's.
@MainActor
final class MainLoop {
    private let epoll: Int32
    private var handlers: [Int32: @MainActor () -> Void] = [:]
    private let mainQueueFD: Int32
    private let drainMainQueue: @convention(c) (UnsafeMutableRawPointer?) -> Void
    /// Runs after the handlers of one `epoll_wait`'s ready descriptors: however many changes
    /// one turn brings, the frame is drawn once, here.
    var onTurnEnd: () -> Void = {}

    /// Creates the loop; fails when the kernel or Dispatch does not offer what it needs.
    init() throws(LoopError) {
        epoll = wh_epoll_create()
        guard epoll >= 0 else { throw .system("epoll_create1", errno) }
        // RTLD_DEFAULT (a null handle): search the libraries the process has loaded; with
        // Dispatch linked statically, the symbols linked in (CLinux).
        guard let handleSymbol = dlsym(nil, "_dispatch_get_main_queue_handle_4CF") ?? wh_dispatch_main_queue_handle(),
              let drainSymbol = dlsym(nil, "_dispatch_main_queue_callback_4CF") ?? wh_dispatch_main_queue_callback() else {
            throw .missingDispatchRunLoopSupport
        }
        let handle = unsafeBitCast(handleSymbol, to: (@convention(c) () -> Int32).self)
        drainMainQueue = unsafeBitCast(drainSymbol, to: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self)
        mainQueueFD = handle()
        // The entry points are libdispatch's private interface to CoreFoundation's run loop
        // (swift-corelibs-foundation's RunLoop drives the main queue through the same two).
        // Should they ever change shape, refuse to start rather than read or call garbage:
        // the handle must be an eventfd of ours before the drain function is ever called.
        guard mainQueueFD >= 0, Self.isEventFD(mainQueueFD) else { throw .missingDispatchRunLoopSupport }
        watch(mainQueueFD) { [drainMainQueue, mainQueueFD] in
            var count: UInt64 = 0
            _ = read(mainQueueFD, &count, 8)
            drainMainQueue(nil)
        }
    }

    /// Whether `fd` is an open eventfd (`/proc/self/fd/N` reads `anon_inode:[eventfd]`).
    nonisolated static func isEventFD(_ fd: Int32) -> Bool {
        var buffer = [CChar](repeating: 0, count: 64)
        let count = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard count > 0 else { return false }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self) == "anon_inode:[eventfd]"
    }

    /// Calls `handler` on the main thread whenever `fd` has input (level-triggered: the handler
    /// must read what is there).
    func watch(_ fd: Int32, handler: @escaping @MainActor () -> Void) {
        handlers[fd] = handler
        _ = wh_epoll_add(epoll, fd, UInt64(UInt32(bitPattern: fd)))
    }

    /// An eventfd the loop watches: the returned closure (any thread) rings it, and `handler`
    /// runs in the loop's next turn, once however many rings came (a mailbox's signal).
    func doorbell(_ handler: @escaping @MainActor () -> Void) throws(LoopError) -> @Sendable () -> Void {
        let fd = wh_eventfd()
        guard fd >= 0 else { throw .system("eventfd", errno) }
        watch(fd) {
            var count: UInt64 = 0
            _ = read(fd, &count, 8)
            handler()
        }
        return {
            var one: UInt64 = 1
            _ = write(fd, &one, 8)
        }
    }

    /// Stops watching `fd` (the caller closes it).
    func unwatch(_ fd: Int32) {
        handlers[fd] = nil
        _ = wh_epoll_remove(epoll, fd)
    }

    /// Runs forever; handlers end the process when it should end.
    func run() -> Never {
        drainMainQueue(nil)  // work queued before the loop started
        onTurnEnd()
        var ready = [UInt64](repeating: 0, count: 16)
        while true {
            let count = wh_epoll_wait(epoll, &ready, Int32(ready.count), -1)
            if count < 0 {
                if errno == EINTR { continue }
                fatalError("epoll_wait failed: \(String(cString: strerror(errno)))")
            }
            for index in 0..<Int(count) {
                let fd = Int32(truncatingIfNeeded: ready[index])
                handlers[fd]?()
            }
            onTurnEnd()
        }
    }

    enum LoopError: Error, CustomStringConvertible {
        case system(String, Int32)
        case missingDispatchRunLoopSupport

        var description: String {
            switch self {
            case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
            case .missingDispatchRunLoopSupport: "this Dispatch library cannot drain its main queue in a run loop"
            }
        }
    }
}

/// The wall clock, waking the loop through one `timerfd` armed at the earliest scheduled
/// moment (absolute wall-clock time, so a machine that slept wakes to the right entry, and a
/// change of the system clock re-evaluates at once).
@MainActor
final class LoopClock: WidgetClock {
    private struct Pending {
        var date: Date
        var sequence: UInt64
        var action: @Sendable () -> Void
    }

    private let fd: Int32
    private let wallClock: any TransportClock
    private let pending = Mutex<(items: [Pending], next: UInt64)>(([], 0))
    /// Called on the loop when the system's wall clock was set (not when it merely ran on),
    /// with the step in seconds (negative: back): entries chosen for the old time may be wrong
    /// now, and waits measured in the old time are off by the step.
    var onClockChange: (TimeInterval) -> Void = { _ in }
    /// The wall clock minus the monotonic clock (which counts on through a suspend and is never
    /// set) when last read: a change of it is the step.
    private var wallOffset: Double
    private let monotonicReference: ContinuousClock.Instant

    /// - Parameter wallClock: where `now` comes from (`HostIO.clock`); it must be the system's
    ///   wall clock (`CLOCK_REALTIME`), which the timerfd counts in.
    init(loop: MainLoop, wallClock: any TransportClock = SystemTransportClock()) throws(MainLoop.LoopError) {
        self.wallClock = wallClock
        monotonicReference = wallClock.now
        wallOffset = Self.offset(wallClock, from: monotonicReference)
        fd = wh_timerfd_create_realtime()
        guard fd >= 0 else { throw .system("timerfd_create", errno) }
        loop.watch(fd) { [weak self] in self?.fire() }
    }

    nonisolated var now: Date { Date(timeIntervalSince1970: wallClock.wallNow) }

    nonisolated func schedule(at date: Date, _ action: @escaping @Sendable () -> Void) -> ClockTimer {
        let sequence = pending.withLock { state -> UInt64 in
            state.next += 1
            state.items.append(Pending(date: date, sequence: state.next, action: action))
            return state.next
        }
        rearm()
        return ClockTimer { [weak self] in
            guard let self else { return }
            self.pending.withLock { $0.items.removeAll { $0.sequence == sequence } }
            self.rearm()
        }
    }

    /// The nanoseconds until the timer descriptor fires, or 0 when disarmed (for tests).
    nonisolated var armedDelayNanoseconds: Int64 { wh_timerfd_remaining_ns(fd) }

    private func fire() {
        var expirations: UInt64 = 0
        if read(fd, &expirations, 8) < 0 && errno == ECANCELED {
            // The wall clock was set (an NTP step, a user, a resumed VM): re-arm against it.
            rearm()
            let offset = Self.offset(wallClock, from: monotonicReference)
            let step = offset - wallOffset
            wallOffset = offset
            onClockChange(step)
        }
        let current = now
        let due = pending.withLock { state -> [Pending] in
            let due = state.items.filter { $0.date <= current }.sorted { ($0.date, $0.sequence) < ($1.date, $1.sequence) }
            state.items.removeAll { $0.date <= current }
            return due
        }
        for item in due { item.action() }
        rearm()
    }

    /// Seconds of the wall clock minus seconds of the monotonic one (`ContinuousClock`, which
    /// on Linux is `CLOCK_BOOTTIME`: a suspend is not a step).
    private nonisolated static func offset(_ clock: any TransportClock, from reference: ContinuousClock.Instant) -> Double {
        clock.wallNow - (clock.now - reference).inSeconds
    }

    private nonisolated func rearm() {
        let earliest = pending.withLock { $0.items.map(\.date).min() }
        guard let earliest else {
            _ = wh_timerfd_arm(fd, 0, 0)
            return
        }
        // A moment already past arms the nearest representable time: it fires at once. One
        // beyond the year 2^40 s (a date from a hostile server, say) is clamped, never trapped on.
        let seconds = min(max(earliest.timeIntervalSince1970, 1e-9), 1e12)
        let whole = seconds.rounded(.down)
        _ = wh_timerfd_arm(fd, Int64(whole), Int((seconds - whole) * 1e9))
    }
}
