#if canImport(Glibc)
import Glibc
#endif
import BackgroundSessions
import FoundationEssentials
import Synchronization
import Testing
import WidgetCore
import WidgetTestSupport
@testable import Widgets

/// Context switches of thread `tid` of this process so far (voluntary and not): each wake-up
/// from a wait is one.
private func contextSwitches(thread tid: Int32) -> Int? {
    guard let text = try? FileContents.text(at: "/proc/self/task/\(tid)/status") else { return nil }
    return text.split(separator: "\n").filter { $0.hasPrefix("voluntary_ctxt_switches:") || $0.hasPrefix("nonvoluntary_ctxt_switches:") }
        .compactMap { Int($0.split(separator: ":")[1].filter(\.isNumber)) }.reduce(0, +)
}

/// Whether thread `tid` is blocked in poll(2)/ppoll(2) (x86_64 numbers 7, 271), within 2 s.
private func blockedInPoll(thread tid: Int32) async -> Bool {
    await eventually(within: 2) {
        let call = (try? FileContents.text(at: "/proc/self/task/\(tid)/syscall"))?.split(separator: " ").first
        return call == "7" || call == "271"
    }
}

@Suite("mqtt on the transport's network thread: no polling, keepalive from a deadline", .serialized, .onOwnThreads)
struct MQTTLoopTests {
    /// A connection on its own transport, as a panel's provider holds it.
    private func connect(_ broker: MosquittoBroker, keepalive: Int, topics: [String] = ["quiet/#"])
        throws -> (CurlTransport, MQTTConnection) {
        let transport = try CurlTransport()
        var settings = MQTTClient.Settings()
        settings.keepalive = keepalive
        let options = try MQTTOptions(WidgetOptions(["broker": .string(broker.url), "topics": .list(topics.map { .string($0) })]))
        let panel = try MQTTPanel(options, environment: [:])
        let context = WidgetContext(push: PushCenter(transport: transport))
        return (transport, MQTTConnection(panel: panel, context: context, settings: settings))
    }

    @Test("a quiet broker costs the network thread no wake-up; a message costs a few")
    func idle() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let broker = try MosquittoBroker(directory: home.path)
        defer { broker.stop() }
        let (transport, connection) = try connect(broker, keepalive: 60)
        defer { transport.shutdown() }
        let client = try #require(connection.client)
        #expect(await eventually { client.state.link == .live })
        let tid = try #require(transport.networkThreadID)
        // The SUBACK comes after CONNACK: then the thread goes back to its poll.
        #expect(await eventually { client.state.acknowledged == 1 })
        #expect(await blockedInPoll(thread: tid))
        let before = try #require(contextSwitches(thread: tid))
        // Measurement window: nothing is awaited here, the point is that nothing happens.
        try await Task.sleep(for: .seconds(1))
        let after = try #require(contextSwitches(thread: tid))
        #expect(after == before, "\(after - before) wake-ups of a quiet connection")
        try await broker.publish([.init("quiet/one", "1")])
        #expect(await eventually { client.state.table.messageCount == 1 })
        #expect(await blockedInPoll(thread: tid))
        let woken = try #require(contextSwitches(thread: tid)) - after
        #expect((1...4).contains(woken), "\(woken) wake-ups for one message")
        #expect(client.state.connections == 1)
    }

    @Test("the push budget: message reloads at least a second apart, the first at once, the last with the last value; nothing after")
    func pushBudget() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let broker = try MosquittoBroker(directory: home.path)
        defer { broker.stop() }
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        let options = try MQTTOptions(WidgetOptions(["broker": .string(broker.url), "topics": .list([.string("burst/#")]),
                                                     "fields": .list([.object(["label": .string("n"), "pointer": .string("/n")])])]))
        let panel = try MQTTPanel(options, environment: [:])
        // What each reload would show (the field's value when the client asked), and when.
        let shown = Mutex<[(value: String, at: ContinuousClock.Instant)]>([])
        let holder = Mutex<MQTTClient?>(nil)
        let client = MQTTClient(panel: panel, now: { Date() }) {
            let value = holder.withLock { $0 }?.state.table.fieldValues.first??.value
            shown.withLock { $0.append((value.map { HTTPJSONFormat.text($0) } ?? "-", .now)) }
        }
        holder.withLock { $0 = client }
        let id = try #require(transport.watch(client))
        defer { transport.unwatch(id) }
        func values() -> [String] { shown.withLock { $0.map(\.value) } }
        #expect(await eventually { values() == ["-"] && client.state.acknowledged == 1 }, "the link going live: \(values())")
        // Two bursts, the second within the second after the first's reload.
        try await broker.publish((1...100).map { .init("burst/n", #"{"n": \#($0)}"#) })
        #expect(await eventually { values().count >= 2 }, "the first burst reloads at once: \(values())")
        try await broker.publish((101...200).map { .init("burst/n", #"{"n": \#($0)}"#) })
        #expect(await eventually { values().last == "200" }, "\(values())")
        let reloads = shown.withLock { $0.dropFirst() }
        // A flood of any rate: one reload now, one at the end of the spacing (the latest wins).
        for (earlier, later) in zip(reloads, reloads.dropFirst()) {
            // The budget counts from the wake-up's time; a reload is asked after the read that
            // brought it (tens of ms for 100 messages on a loaded machine).
            #expect(earlier.at.duration(to: later.at) >= .milliseconds(900), "\(earlier.value) → \(later.value): \(earlier.at.duration(to: later.at))")
        }
        #expect(reloads.count <= 4, "200 messages, \(reloads.count) reloads: \(values())")
        // Measurement window: the spacing once more, and nothing else is asked.
        let count = values().count
        try await Task.sleep(for: .milliseconds(1_200))
        #expect(values().count == count, "\(values())")
    }

    @Test("keepalive from a deadline: with 5 s, in 9 s of silence the thread wakes only for the pings and their answers, and the connection stays")
    func keepalive() async throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let broker = try MosquittoBroker(directory: home.path)
        defer { broker.stop() }
        let (transport, connection) = try connect(broker, keepalive: 5)
        defer { transport.shutdown() }
        let client = try #require(connection.client)
        #expect(await eventually { client.state.link == .live && client.state.acknowledged == 1 })
        let tid = try #require(transport.networkThreadID)
        #expect(await blockedInPoll(thread: tid))
        let before = try #require(contextSwitches(thread: tid))
        // Measurement window: nothing but pings should happen (without them: 0 wake-ups).
        try await Task.sleep(for: .seconds(9))
        let woken = try #require(contextSwitches(thread: tid)) - before
        #expect(client.state.link == .live && client.state.connections == 1, "\(client.state.link), \(client.state.connections) connections")
        // A ping every 5 s and its answer (read at once when it is back before the thread
        // waits again): one to four wake-ups a ping, not a tick's hundreds; none without pings.
        #expect((1...8).contains(woken), "\(woken) wake-ups in 9 s")
        try await broker.publish([.init("quiet/after", "still here")])
        #expect(await eventually { client.state.table.messages["quiet/after"]?.text == "still here" })
    }
}

/// A loopback TCP server that accepts and never answers (a broker that hangs before CONNACK),
/// keeping every connection to see which the client closed.
private final class SilentServer {
    let fd: Int32
    let port: Int
    private var accepted: [Int32] = []

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        guard listen(fd, 16) == 0 else { throw HarnessError("listen failed") }
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        for connection in accepted { close(connection) }
        close(fd)
    }

    /// Accepts what is waiting; returns (connections accepted so far, those the client still holds open).
    func poll() -> (accepted: Int, open: Int) {
        while true {
            let connection = accept(fd, nil, nil)
            guard connection >= 0 else { break }
            _ = fcntl(connection, F_SETFL, fcntl(connection, F_GETFL) | O_NONBLOCK)
            accepted.append(connection)
        }
        var open = 0
        var buffer = [UInt8](repeating: 0, count: 512)
        for connection in accepted {
            // Drain the CONNECT; 0 is the client's close.
            var n = read(connection, &buffer, buffer.count)
            while n > 0 { n = read(connection, &buffer, buffer.count) }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { open += 1 }
        }
        return (accepted.count, open)
    }
}

@Suite("mqtt: a broker that never answers", .serialized, .onOwnThreads)
struct MQTTSilentBrokerTests {
    @Test("no CONNACK: the attempt times out, the panel says so, its connection is closed at once (not at the next attempt), and it is tried again")
    func noConnack() async throws {
        let server = try SilentServer()
        let transport = try CurlTransport()
        defer { transport.shutdown() }
        var settings = MQTTClient.Settings()
        settings.connectTimeout = .milliseconds(200)
        settings.backoff = MQTTBackoff(base: .seconds(2), maximum: .seconds(2), healthyAfter: .seconds(10))
        let options = try MQTTOptions(WidgetOptions(["broker": .string("mqtt://127.0.0.1:\(server.port)"), "topics": .list([.string("#")])]))
        let connection = MQTTConnection(panel: try MQTTPanel(options, environment: [:]),
                                        context: WidgetContext(push: PushCenter(transport: transport)), settings: settings)
        let client = try #require(connection.client)
        #expect(await eventually { client.state.link != .connecting }, "\(client.state.link)")
        #expect(client.state.link == .down(reason: "no answer from mqtt://127.0.0.1:\(server.port) within 1s"), "\(client.state.link)")
        // Waiting out the backoff (nine tenths of the time here), the client holds nothing
        // open; it never holds more than the attempt under way.
        #expect(await eventually { let seen = server.poll(); return seen.accepted >= 1 && seen.open == 0 }, "\(server.poll())")
        #expect(await eventually { server.poll().accepted >= 2 }, "tried again: \(server.poll())")
        #expect(server.poll().open <= 1, "\(server.poll())")
    }
}
