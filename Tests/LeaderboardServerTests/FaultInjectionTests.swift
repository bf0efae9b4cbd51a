import Glibc
import Testing
import WidgetTestSupport
@testable import LeaderboardServer

private func faultyServer(_ configure: (inout FaultInjection) -> Void) throws -> (HTTPServer, UInt16) {
    var config = HTTPServerConfiguration()
    configure(&config.faults)
    let server = HTTPServer(configuration: config)
    server.route("/data") { _ in .text(String(repeating: "0123456789", count: 100)) }
    return (server, try server.start())
}

@Suite("Fault injection")
struct FaultInjectionTests {
    @Test("the same seed gives the same faults, another seed others, at about the given rates")
    func deterministic() {
        var faults = FaultInjection()
        faults.seed = 42
        faults.failureRate = 0.2
        faults.truncateRate = 0.1
        faults.resetRate = 0.1
        let first = (0..<1000).map { faults.fault(forRequest: $0) }
        #expect(first == (0..<1000).map { faults.fault(forRequest: $0) })
        var other = faults
        other.seed = 43
        #expect(first != (0..<1000).map { other.fault(forRequest: $0) })
        let failures = first.filter { $0 == .serverError }.count
        #expect((150...250).contains(failures))
        #expect((50...150).contains(first.filter { $0 == .truncatedBody }.count))
        #expect(first.filter { $0 == .none }.count > 500)
        #expect(faults.garbage(count: 100, forRequest: 7) == faults.garbage(count: 100, forRequest: 7))
    }

    @Test("failure rate 1 answers 500")
    func serverError() throws {
        let (server, port) = try faultyServer { $0.failureRate = 1 }
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send(get("/data"))
        #expect(try client.readResponse().status == 500)
    }

    @Test("429 carries Retry-After in seconds or as an HTTP date")
    func tooManyRequests() throws {
        let (server, port) = try faultyServer { $0.tooManyRequestsRate = 1; $0.retryAfter = .seconds(7) }
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send(get("/data"))
        let r = try client.readResponse()
        #expect(r.status == 429 && r.headers["Retry-After"] == "7")

        let (dated, datedPort) = try faultyServer { $0.tooManyRequestsRate = 1; $0.retryAfter = .date(secondsAhead: 2) }
        defer { dated.stop() }
        let other = try RawClient(port: datedPort)
        other.send(get("/data"))
        let value = try #require(try other.readResponse().headers["Retry-After"])
        #expect(value.hasSuffix(" GMT") && value.count == 29)
        #expect(HTTPDate.format(secondsSince1970: 784111777) == "Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("a truncated body announces more than it sends, then closes")
    func truncated() throws {
        let (server, port) = try faultyServer { $0.truncateRate = 1 }
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send(get("/data"))
        #expect(throws: RawClient.Failure.self) { try client.readResponse() }
        let raw = String(decoding: try RawClient(port: port).sendingThenReadingToEnd(get("/data")), as: UTF8.self)
        #expect(raw.contains("Content-Length: 1000\r\n"))
        #expect(raw.split(separator: "\r\n\r\n", maxSplits: 1).last?.utf8.count == 500)
    }

    @Test("a garbage body has the right length and other bytes")
    func garbage() throws {
        let (server, port) = try faultyServer { $0.garbageRate = 1 }
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send(get("/data"))
        let r = try client.readResponse()
        #expect(r.status == 200 && r.body.count == 1000)
        #expect(r.body != Array(String(repeating: "0123456789", count: 100).utf8))
    }

    @Test("a reset closes the connection with RST and no answer")
    func reset() throws {
        let (server, port) = try faultyServer { $0.resetRate = 1 }
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send(get("/data"))
        #expect(throws: RawClient.Failure.reset) { try client.readResponse() }
    }

    @Test("a delay holds the answer back")
    func delay() throws {
        let (server, port) = try faultyServer { $0.delay = .milliseconds(200) }
        defer { server.stop() }
        let client = try RawClient(port: port)
        let start = ContinuousClock.now
        client.send(get("/data"))
        #expect(try client.readResponse().status == 200)
        #expect(ContinuousClock.now - start >= .milliseconds(190))
    }
}

extension RawClient {
    func sendingThenReadingToEnd(_ text: String) throws -> [UInt8] {
        send(text)
        return try readToEnd()
    }
}

extension RawClient.Failure: Equatable {
    static func == (a: Self, b: Self) -> Bool {
        switch (a, b) {
        case (.reset, .reset), (.timedOut, .timedOut), (.malformed, .malformed): return true
        case (.connect(let x), .connect(let y)): return x == y
        case (.closed(let x), .closed(let y)): return x == y
        default: return false
        }
    }
}
