import BackgroundSessions
import Glibc
import Synchronization
import Testing
import WidgetTestSupport

/// A client over one end of a socket pair that records what the network thread asks of it;
/// its deadline is whatever the test sets.
private final class RecordingClient: NetworkSocketClient {
    struct Record {
        var started = 0
        var readable = 0
        var deadlines = 0
        var stopped = 0
        var bytes: [UInt8] = []
        var threads: Set<String> = []
        var deadline: ContinuousClock.Instant?
    }

    let fd: Int32
    let record = Mutex(Record())

    init(fd: Int32) { self.fd = fd }

    func start(now: ContinuousClock.Instant) {
        let tid = threadName()
        record.withLock { $0.started += 1; $0.threads.insert(tid) }
    }

    func interest(now: ContinuousClock.Instant) -> NetworkSocketInterest {
        NetworkSocketInterest(descriptor: fd, wantsWrite: false, deadline: record.withLock { $0.deadline })
    }

    func service(readable: Bool, writable: Bool, now: ContinuousClock.Instant) {
        let tid = threadName()
        if readable {
            var byte: UInt8 = 0
            let n = read(fd, &byte, 1)
            record.withLock { if n == 1 { $0.bytes.append(byte) }; $0.readable += 1; $0.threads.insert(tid) }
        } else {
            record.withLock { r in
                if let deadline = r.deadline, deadline <= now { r.deadlines += 1; r.deadline = nil }
                r.threads.insert(tid)
            }
        }
    }

    func stop() { record.withLock { $0.stopped += 1 } }
}

/// The calling thread's name.
private func threadName() -> String {
    ((try? FileContents.text(at: "/proc/thread-self/comm")) ?? "").trimmingSuffix
}

extension String {
    fileprivate var trimmingSuffix: String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}

@Suite("the network thread drives other protocols' sockets (NetworkSocketClient)")
struct NetworkSocketsTests {
    @Test("a watched client is started, served when its socket is readable and when its deadline comes, on the network thread only, and stopped on unwatch")
    func watched() async throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let client = RecordingClient(fd: pair[0])
        let id = try #require(transport.watch(client))
        #expect(await eventually { client.record.withLock { $0.started } == 1 })

        var byte: UInt8 = 7
        _ = write(pair[1], &byte, 1)
        #expect(await eventually { client.record.withLock { $0.bytes } == [7] })

        // A deadline with nothing to read: served once it has come (the poll's timeout is
        // bounded by it; the command wakes the thread so it asks again).
        client.record.withLock { $0.deadline = .now + .milliseconds(50) }
        let other = RecordingClient(fd: pair[1])
        let otherID = try #require(transport.watch(other))
        #expect(await eventually { client.record.withLock { $0.deadlines } == 1 })

        #expect(client.record.withLock { $0.threads } == ["wh-transport"])
        transport.unwatch(id)
        #expect(await eventually { client.record.withLock { $0.stopped } == 1 })
        byte = 8
        _ = write(pair[1], &byte, 1)
        transport.unwatch(otherID)
        #expect(await eventually { other.record.withLock { $0.stopped } == 1 })
        #expect(client.record.withLock { $0.bytes } == [7])
    }

    @Test("shutdown stops the clients still watched")
    func shutdown() async throws {
        var pair: [Int32] = [0, 0]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        let transport = try CurlTransport()
        let client = RecordingClient(fd: pair[0])
        _ = try #require(transport.watch(client))
        #expect(await eventually { client.record.withLock { $0.started } == 1 })
        transport.shutdown()
        #expect(client.record.withLock { $0.stopped } == 1)
        #expect(transport.watch(RecordingClient(fd: pair[1])) == nil)
    }
}
