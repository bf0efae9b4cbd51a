import Glibc
import Synchronization
import Testing
import WidgetTestSupport
@testable import LeaderboardServer

private func makeServer(_ configure: (inout HTTPServerConfiguration) -> Void = { _ in },
                        log: (@Sendable (AccessLogEntry) -> Void)? = nil) throws -> (HTTPServer, UInt16) {
    var config = HTTPServerConfiguration()
    configure(&config)
    let server = HTTPServer(configuration: config, accessLog: log)
    server.route("/hello") { _ in .text("hello\n") }
    server.route("/board") { _ in .json(Array("{\"heroes\":[]}".utf8)) }
    server.route("/echo", methods: ["POST"], maxBodyBytes: 1024 * 1024) { request in HTTPResponse(body: request.body) }
    return (server, try server.start())
}

struct BadRequest: Sendable, CustomTestStringConvertible {
    let testDescription: String
    let text: String
    let status: Int
}

private let badRequests = [
    BadRequest(testDescription: "garbage request line", text: "GARBAGE\r\n\r\n", status: 400),
    BadRequest(testDescription: "HTTP/1.1 without Host", text: "GET /hello HTTP/1.1\r\n\r\n", status: 400),
    BadRequest(testDescription: "unsupported version", text: "GET /hello HTTP/2.0\r\nHost: x\r\n\r\n", status: 505),
    BadRequest(testDescription: "space in a header name", text: "GET /hello HTTP/1.1\r\nHost: x\r\nBad Name: 1\r\n\r\n", status: 400),
    BadRequest(testDescription: "bad Content-Length", text: "GET /hello HTTP/1.1\r\nHost: x\r\nContent-Length: 1x\r\n\r\n", status: 400),
    BadRequest(testDescription: "request line over 8 KB",
               text: "GET /" + String(repeating: "a", count: 9000) + " HTTP/1.1\r\nHost: x\r\n\r\n", status: 414),
    BadRequest(testDescription: "101 header fields",
               text: "GET /hello HTTP/1.1\r\nHost: x\r\n" + String(repeating: "X-A: 1\r\n", count: 101) + "\r\n", status: 431),
    BadRequest(testDescription: "header section over 16 KB",
               text: "GET /hello HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "b", count: 17000) + "\r\n\r\n", status: 431),
    BadRequest(testDescription: "body over 1 MB", text: "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000\r\n\r\n", status: 413),
    BadRequest(testDescription: "chunked request body", text: "POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n", status: 501),
]

@Suite("HTTP server")
struct HTTPServerTests {
    @Test("binds port 0 to a free port and serves two requests on one keep-alive connection")
    func keepAlive() throws {
        let (server, port) = try makeServer()
        defer { server.stop() }
        #expect(port != 0)
        #expect(server.port == port)
        let client = try RawClient(port: port)
        client.send(get("/hello"))
        let first = try client.readResponse()
        #expect(first.status == 200)
        #expect(first.body == Array("hello\n".utf8))
        #expect(first.headers["Connection"] == "keep-alive")
        client.send(get("/hello?x=1"))
        #expect(try client.readResponse().status == 200)
    }

    @Test("a second start and a busy port are reported as errors")
    func startErrors() throws {
        let (server, port) = try makeServer()
        defer { server.stop() }
        #expect(throws: ServerError.notStartable) { try server.start() }
        let other = HTTPServer(configuration: HTTPServerConfiguration(port: port))
        #expect(throws: ServerError.system("bind", EADDRINUSE)) { try other.start() }
        #expect(throws: ServerError.badHost("nowhere")) { try HTTPServer(configuration: .init(host: "nowhere")).start() }
    }

    @Test("unknown paths get 404 and wrong methods 405 with Allow")
    func notFoundAndMethod() throws {
        let (server, port) = try makeServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send(get("/nope"))
        #expect(try client.readResponse().status == 404)
        client.send("DELETE /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        let r = try client.readResponse()
        #expect(r.status == 405)
        #expect(r.headers["Allow"] == "GET, HEAD")
    }

    @Test("HEAD announces the length without a body; POST bodies reach the handler")
    func headAndPost() throws {
        let (server, port) = try makeServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send("HEAD /hello HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readResponse(head: true)
        #expect(head.status == 200 && head.headers["Content-Length"] == "6" && head.body.isEmpty)
        client.send("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nabcde")
        #expect(try client.readResponse().body == Array("abcde".utf8))
    }

    @Test("a matching If-None-Match is answered 304 without a body, a stale one 200")
    func conditional() throws {
        let (server, port) = try makeServer()
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send(get("/board"))
        let full = try client.readResponse()
        let etag = try #require(full.headers["ETag"])
        #expect(etag == HTTPResponse.entityTag(for: Array("{\"heroes\":[]}".utf8)))
        client.send(get("/board", "If-None-Match: \"other\", W/\(etag)\r\n"))
        let notModified = try client.readResponse()
        #expect(notModified.status == 304 && notModified.body.isEmpty && notModified.headers["ETag"] == etag)
        client.send(get("/board", "If-None-Match: \"stale\"\r\n"))
        #expect(try client.readResponse().status == 200)
    }

    @Test("malformed and oversized requests get 4xx, then the server still serves", arguments: badRequests)
    func rejects(_ bad: BadRequest) throws {
        let (request, status) = (bad.text, bad.status)
        let (server, port) = try makeServer()
        defer { server.stop() }
        let bad = try RawClient(port: port)
        bad.send(request)
        let answer = try bad.readResponse()
        #expect(answer.status == status)
        #expect(answer.headers["Connection"] == "close")
        #expect(try bad.readToEnd().isEmpty)
        let good = try RawClient(port: port)
        good.send(get("/hello"))
        #expect(try good.readResponse().status == 200)
    }

    @Test("200 parallel connections are all answered")
    func parallel() async throws {
        let (server, port) = try makeServer()
        defer { server.stop() }
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<200 {
                group.addTask {
                    let client = try RawClient(port: port)
                    client.send(get("/hello", "Connection: close\r\n"))
                    return try client.readResponse(timeout: .seconds(30)).status
                }
            }
            return try await group.reduce(into: [Int]()) { $0.append($1) }
        }
        #expect(statuses.count == 200)
        #expect(statuses.allSatisfy { $0 == 200 })
    }

    @Test("a client trickling one byte at a time is cut off at the request deadline")
    func slowClient() throws {
        let (server, port) = try makeServer { $0.requestTimeout = .milliseconds(300) }
        defer { server.stop() }
        let client = try RawClient(port: port)
        let request = Array(get("/hello").utf8)
        let start = ContinuousClock.now
        var sent = 0
        var answer: [UInt8]?
        // One byte, then wait up to 100 ms for the server to react; the waiting is the pacing.
        while sent < request.count {
            client.send([request[sent]])
            sent += 1
            if let bytes = try? client.receiveSome(timeout: .milliseconds(100)) {
                answer = bytes
                break
            }
        }
        let elapsed = ContinuousClock.now - start
        #expect(sent < request.count)
        #expect(String(decoding: answer ?? [], as: UTF8.self).hasPrefix("HTTP/1.1 408"))
        #expect(elapsed >= .milliseconds(250) && elapsed < .seconds(3))
        // Closed after the 408: an orderly end, or a reset when a byte sent after the deadline
        // met the closed socket (a loaded machine can be that slow to read the answer).
        let rest: [UInt8]
        do { rest = try client.readToEnd(timeout: .seconds(5)) } catch RawClient.Failure.reset { rest = [] }
        #expect(rest.isEmpty)
    }

    @Test("an idle keep-alive connection is closed after the idle timeout")
    func idleTimeout() throws {
        let (server, port) = try makeServer { $0.idleTimeout = .milliseconds(200) }
        defer { server.stop() }
        let client = try RawClient(port: port)
        client.send(get("/hello"))
        #expect(try client.readResponse().status == 200)
        #expect(try client.receiveSome(timeout: .seconds(5)) == nil)
    }

    @Test("stop cuts open connections and returns; the port is released")
    func stop() throws {
        let (server, port) = try makeServer()
        let client = try RawClient(port: port)
        client.send(get("/hello"))
        #expect(try client.readResponse().status == 200)
        server.stop()
        #expect(try client.receiveSome(timeout: .seconds(5)) == nil)
        #expect(throws: RawClient.Failure.self) { try RawClient(port: port) }
        server.stop()
    }

    @Test("the access log gets one line per request")
    func accessLog() throws {
        let lines = Mutex<[String]>([])
        let (server, port) = try makeServer(log: { entry in lines.withLock { $0.append(entry.line) } })
        let client = try RawClient(port: port)
        client.send(get("/hello") + get("/nope"))
        _ = try client.readResponse()
        _ = try client.readResponse()
        server.stop()
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2)
        #expect(logged.first?.hasPrefix("127.0.0.1 \"GET /hello\" 200 6 ") == true)
        #expect(logged.last?.hasPrefix("127.0.0.1 \"GET /nope\" 404 ") == true)
    }
}
