#if canImport(Glibc)
import Glibc
#endif
@testable import BackgroundSessions
import Dispatch
import FoundationEssentials
@testable import Extensions
import JSONTree
import Synchronization
import Testing
import WidgetCore
import Widgets
import WidgetTestSupport

@Suite("download headers: validation")
struct DownloadHeadersValidationTests {
    private func check(_ json: String) -> Result<[String: String], DownloadHeaders.Problem> {
        DownloadHeaders.validate(try! JSONParser(maximumBytes: 1 << 20, maximumDepth: 8).parse(Array(json.utf8)))
    }

    private func problem(_ json: String) -> String {
        guard case .failure(let problem) = check(json) else { return "accepted" }
        return problem.message
    }

    @Test("token names and values without control characters pass (a tab is fine)")
    func valid() throws {
        #expect(try check(#"{"Authorization": "Bearer abc", "X-Trace_1!": "a\tb", "Accept": ""}"#).get()
                == ["Authorization": "Bearer abc", "X-Trace_1!": "a\tb", "Accept": ""])
        #expect(try check("{}").get().isEmpty)
    }

    @Test("a bad name, a value with CR, LF, NUL or ESC, a non-string value: refused naming the header, never quoting the value")
    func invalid() {
        #expect(problem(#"{"X Bad": "v"}"#) == "header 'X Bad' is not a valid name (RFC 7230 token characters, 1–64 bytes)")
        #expect(problem(#"{"X:y": "v"}"#).hasPrefix("header 'X:y' is not a valid name"))
        #expect(problem(#"{"": "v"}"#).hasPrefix("header '' is not a valid name"))
        #expect(problem(#"{"Ünï": "v"}"#).hasPrefix("header 'Ünï' is not a valid name"))
        for value in [#"a\r\nX-Injected: 1"#, #"a\nb"#, #"a\u0000b"#, #"a\u001b[2Jb"#, #"a\u007fb"#] {
            let message = problem(#"{"X-Token": "secret"# + value + #""}"#)
            #expect(message == "header 'X-Token': the value contains a control character (CR, LF, NUL or another)", "\(value)")
            #expect(!message.contains("secret"))
        }
        #expect(problem(#"{"X-Count": 3}"#) == "header 'X-Count': the value must be a string")
        #expect(problem(#"["Accept"]"#) == "headers must be an object {name: value}")
    }

    @Test("bounded: 32 headers, 64-byte names, 4096-byte values, 16 KiB in all; host-set and repeated names refused")
    func bounds() {
        let many = (0...32).map { #""X-\#($0)": "v""# }.joined(separator: ",")
        #expect(problem("{\(many)}") == "at most 32 headers; got 33")
        #expect(problem(#"{"\#(String(repeating: "n", count: 65))": "v"}"#).contains("is not a valid name"))
        #expect(problem(#"{"X-Long": "\#(String(repeating: "v", count: 4097))"}"#) == "header 'X-Long': the value is longer than 4096 bytes")
        let big = (0..<5).map { #""X-\#($0)": "\#(String(repeating: "v", count: 4000))""# }.joined(separator: ",")
        #expect(problem("{\(big)}") == "headers are longer than 16384 bytes in all")
        #expect(problem(#"{"Content-Length": "5"}"#) == "header 'Content-Length' is set by the host and cannot be given")
        #expect(problem(#"{"host": "example.com"}"#).contains("is set by the host"))
        #expect(problem(#"{"Accept": "a", "accept": "b"}"#) == "header 'accept' is given twice")
    }

    @Test("--debug shows a download's header names with their values hidden")
    func redactedDebugText() {
        let line = #"{"jsonrpc":"2.0","id":7,"method":"download","params":{"identifier":"b","url":"http://127.0.0.1:9/x","headers":{"Authorization":"Bearer sekrit"}}}"#
        let (message, text) = IncomingMessage.parse(Array(line.utf8), maximumBytes: 1 << 20)
        guard case .call("download", _, _) = message else {
            Issue.record("not a call: \(message)")
            return
        }
        #expect(text == #"{"jsonrpc":"2.0","id":7,"method":"download","params":{"identifier":"b","url":"http://127.0.0.1:9/x","headers":{"Authorization":"***"}}}"#)
        let list = #"{"jsonrpc":"2.0","id":8,"method":"download","params":{"identifier":"b","url":"http://x/","headers":["Authorization: sekrit"]}}"#
        #expect(!IncomingMessage.parse(Array(list.utf8), maximumBytes: 1 << 20).debugText.contains("sekrit"))
        let broken = #"{"jsonrpc":"2.0","id":9,"method":"download","params":{"headers":{"Authorization":"sekrit"}}"#
        let (violation, shown) = IncomingMessage.parse(Array(broken.utf8), maximumBytes: 1 << 20)
        guard case .violation(let reason) = violation else {
            Issue.record("not a violation: \(violation)")
            return
        }
        #expect(!shown.contains("sekrit"))
        // A protocol error quotes its line, except one that mentions headers.
        #expect(!reason.contains("sekrit") && reason.hasSuffix("(a line of \(broken.utf8.count) bytes, not shown: it mentions headers)"), "\(reason)")
        let wrongShape = #"{"jsonrpc":"1.0","id":9,"result":{}}"#
        if case .violation(let shape) = IncomingMessage.parse(Array(wrongShape.utf8), maximumBytes: 1 << 20).message {
            #expect(shape == #"sent a message without "jsonrpc": "2.0": "{"jsonrpc":"1.0","id":9,"result":{}}""#)
        } else {
            Issue.record("not a violation")
        }
    }
}

@Suite("download headers: transport, journal, restart", .serialized, .onOwnThreads(.awaitingExtensions))
struct ExtensionHeadersTests {
    static let headers = #"{"Authorization":"Bearer sekrit-42","X-Trace":"t1"}"#

    @Test("headers reach the transport request; the journal, the log (with --debug) and the ledger never hold a value")
    func headersInMemoryOnly() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 2}"#, headers: Self.headers, debug: true)
        defer { rig.close() }
        _ = try await rig.timeline(url: "http://127.0.0.1:9/board.json")
        #expect(await rig.transport.wait { $0.startedRequests.count == 1 })
        #expect(rig.transport.startedRequests[0].headers == ["Authorization": "Bearer sekrit-42", "X-Trace": "t1"])
        #expect(await rig.fake.logged { $0.contains("download 1 in session board with 2 header(s)") })
        #expect(rig.fake.logLines.contains { $0.contains(#""headers":{"Authorization":"***","X-Trace":"***"}"#) }, "\(rig.fake.logLines)")
        // --debug logs the host's answers to the extension's requests too, not only its requests.
        #expect(await rig.fake.logged { $0.hasPrefix(#"debug: fake → {"jsonrpc":"2.0","id":9001,"result":{"task":"#) },
                "\(rig.fake.logLines)")
        #expect(!rig.fake.logLines.contains { $0.contains("sekrit") })
        // --debug shows the host's answers to the extension's requests too.
        #expect(rig.fake.logLines.contains(#"debug: fake → {"jsonrpc":"2.0","id":9001,"result":{"task":1}}"#), "\(rig.fake.logLines)")
        let ledger = try #require(readText(rig.fake.stateDirectory + "/extension-headers/fake"))
        #expect(ledger == "ext.fake.board\thttp://127.0.0.1:9/board.json\n")
        rig.manager.close()
        for file in ["sessions.sqlite", "sessions.sqlite-wal", "sessions.sqlite-journal"] {
            let bytes = readText(rig.fake.stateDirectory + "/" + file) ?? ""
            #expect(!bytes.contains("sekrit") && !bytes.contains("X-Trace"), "\(file)")
        }
    }

    @Test("a bad header is a JSON-RPC error answer naming it; nothing starts; the extension keeps running")
    func badHeader() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 2}"#, headers: #"{"X-Ok":"fine","X-Evil":"a\r\nHost: elsewhere"}"#)
        defer { rig.close() }
        _ = try await rig.timeline(url: "http://127.0.0.1:9/board.json")
        #expect(await rig.fake.logged { $0.contains("download refused: ") })
        let refused = rig.fake.logLines.first { $0.contains("download refused: ") } ?? ""
        #expect(refused.contains(#""code":-32602,"message":"download: header 'X-Evil': the value contains a control character"#), "\(refused)")
        #expect(rig.transport.startedRequests.isEmpty)
        #expect(rig.fake.host.status.isRunning && rig.fake.host.status.protocolErrors == 0)
    }

    @Test("the host stops while a download with headers runs: on the next start it is not resumed headerless but delivered as failed; the journal ends clean")
    func restartFailsHeaderDownload() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 2}"#, headers: Self.headers)
        defer { rig.fake.close() }
        _ = try await rig.timeline(url: "http://127.0.0.1:9/board.json")
        #expect(await rig.transport.wait { $0.runningIDs.count == 1 })
        // The host goes away mid-transfer (the journal keeps the task running) with its extension.
        rig.manager.close()
        rig.fake.runtime.stopAll()

        let transport = FakeTransport()
        let manager = try BackgroundSessionManager.open(stateDirectory: rig.fake.stateDirectory, transport: transport,
                                                        deliveryQueue: DispatchQueue(label: "test.delivery.2"))
        defer { manager.close() }
        #expect(manager.suspendedTasks.count == 1)
        let lines = Mutex<[String]>([])
        let runtime = ExtensionRuntime(manifests: [rig.fake.manifest])
        runtime.setLog { level, message in lines.withLock { $0.append("\(level.rawValue): \(message)") } }
        defer { runtime.stopAll() }
        runtime.hosts[0].bind(spawner: rig.fake.spawner, environment: ["PATH": "/usr/bin:/bin"], stateDirectory: rig.fake.stateDirectory,
                              sessions: manager)
        // What the dashboard does next: resume what is still suspended, then route the events.
        #expect(manager.suspendedTasks.isEmpty)
        #expect(manager.resumeTasks { _, _ in URL(string: "http://127.0.0.1:9/board.json") }.isEmpty)
        let widget = ExtensionWidgets.configuration(rig.fake.manifest.widgets[0], host: runtime.hosts[0])
        manager.eventRouter = BackgroundSessionManager.router(for: { [widget] })
        manager.routePendingEvents()
        #expect(await eventually { lines.withLock { $0 }.contains { $0.contains("events (launch 2)") } })
        let events = lines.withLock { $0 }.first { $0.contains("events (launch 2)") } ?? ""
        #expect(events.contains(#""url":"http://127.0.0.1:9/board.json","status":"failed","error":"the host stopped while this download ran and kept its headers in memory only, so it was not resumed: download it again""#),
                "\(events)")
        #expect(await eventually { manager.pendingEvents.isEmpty })
        #expect(transport.startedRequests.isEmpty)  // never fetched without its headers
        #expect(await eventually { readText(rig.fake.stateDirectory + "/extension-headers/fake") == nil })
    }

    @Test("against a 127.0.0.1 server: the headers arrive with the request")
    func headersArrive() async throws {
        let server = try RecordingHTTPServer()
        defer { server.stop() }
        let fake = try FakeExtension(script: "downloads.sh", limits: #"{"requestSeconds": 2}"#)
        defer { fake.close() }
        try fake.scratch.write("fake/headers.json", Self.headers)
        let manager = try BackgroundSessionManager.open(stateDirectory: fake.stateDirectory, transport: try CurlTransport(),
                                                        deliveryQueue: DispatchQueue(label: "test.delivery.curl"))
        defer { manager.close() }
        fake.host.bind(spawner: fake.spawner, environment: ["PATH": "/usr/bin:/bin"], stateDirectory: fake.stateDirectory, sessions: manager)
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host)
        manager.eventRouter = BackgroundSessionManager.router(for: { [widget] })
        let provider = try widget.makeProvider(["url": .string(server.url + "/board.json")])
        _ = try await provider.timeline(in: TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5)))
        #expect(await fake.logged("info: fake stderr: body: BOARD"))
        let request = server.requests.first ?? ""
        #expect(request.hasPrefix("GET /board.json HTTP/1.1\r\n"), "\(request)")
        #expect(request.contains("\r\nAuthorization: Bearer sekrit-42\r\n"), "\(request)")
        #expect(request.contains("\r\nX-Trace: t1\r\n"), "\(request)")
        #expect(await eventually { manager.pendingEvents.isEmpty })
    }

    @Test("against a 127.0.0.1 server: a second download of a URL is conditional (notModified); with conditional: false it is not, and has a body")
    func conditionalDownloads() async throws {
        let server = try RecordingHTTPServer()
        defer { server.stop() }
        let fake = try FakeExtension(script: "downloads.sh", limits: #"{"requestSeconds": 2}"#)
        defer { fake.close() }
        let manager = try BackgroundSessionManager.open(stateDirectory: fake.stateDirectory, transport: try CurlTransport(),
                                                        deliveryQueue: DispatchQueue(label: "test.delivery.conditional"))
        defer { manager.close() }
        fake.host.bind(spawner: fake.spawner, environment: ["PATH": "/usr/bin:/bin"], stateDirectory: fake.stateDirectory, sessions: manager)
        let widget = ExtensionWidgets.configuration(fake.manifest.widgets[0], host: fake.host)
        manager.eventRouter = BackgroundSessionManager.router(for: { [widget] })
        let provider = try widget.makeProvider(["url": .string(server.url + "/board.json")])
        let context = TimelineProviderContext(family: .small, size: CellSize(columns: 20, rows: 5))
        func events() -> [String] { fake.logLines.filter { $0.contains("stderr: events (launch") } }
        for round in 1...3 {
            if round == 3 { try fake.scratch.write("fake/download-extra", #","conditional":false"#) }
            _ = try await provider.timeline(in: context)
            #expect(await eventually { events().count == round && manager.pendingEvents.isEmpty }, "\(fake.logLines)")
        }
        let requests = server.requests
        try #require(requests.count == 3, "\(requests)")
        #expect(!requests[0].contains("If-None-Match"), "\(requests[0])")
        #expect(requests[1].contains("\r\nIf-None-Match: \"v1\"\r\n"), "\(requests[1])")
        #expect(!requests[2].contains("If-None-Match"), "\(requests[2])")
        let seen = events()
        #expect(seen[0].contains(#""status":"downloaded""#), "\(seen)")
        #expect(seen[1].contains(#""status":"notModified","notModified":true"#), "\(seen)")
        #expect(seen[2].contains(#""status":"downloaded""#), "\(seen)")
        #expect(fake.logLines.filter { $0.contains("stderr: body: BOARD") }.count == 2)
        #expect(fake.logLines.contains { $0.hasSuffix("in session board, unconditional") }, "\(fake.logLines)")
    }

    @Test("conditional must be a boolean: anything else is a -32602 answer and nothing starts")
    func conditionalBadType() async throws {
        let rig = try SessionRig(limits: #"{"requestSeconds": 2}"#)
        defer { rig.close() }
        try rig.fake.scratch.write("fake/download-extra", #","conditional":"no""#)
        _ = try await rig.timeline(url: "http://127.0.0.1:9/board.json")
        #expect(await rig.fake.logged { $0.contains("download refused: ") })
        let refused = rig.fake.logLines.first { $0.contains("download refused: ") } ?? ""
        #expect(refused.contains(#""code":-32602,"message":"download: conditional must be true or false""#), "\(refused)")
        #expect(rig.transport.startedRequests.isEmpty)
    }
}

private func readText(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
        let count = read(fd, &chunk, chunk.count)
        guard count > 0 else { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// A loopback server that records each request's head and answers `200` with `BOARD` and an
/// ETag, or `304` to a request with `If-None-Match`.
private final class RecordingHTTPServer: Sendable {
    let port: UInt16
    private let listener: Int32
    private let recorded = Mutex<[String]>([])
    private let stopped = Mutex(false)

    var url: String { "http://127.0.0.1:\(port)" }
    var requests: [String] { recorded.withLock { $0 } }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound, listen(fd, 16) == 0 else {
            close(fd)
            throw HarnessError("cannot listen on 127.0.0.1")
        }
        listener = fd
        port = UInt16(bigEndian: addr.sin_port)
        guard DetachedThread.start(name: "test-http", { [self] in serve() }) else { throw HarnessError("no thread") }
    }

    private func serve() {
        while !stopped.withLock({ $0 }) {
            let fd = accept(listener, nil, nil)
            guard fd >= 0 else {
                if errno == EINTR { continue }
                return
            }
            var timeout = timeval(tv_sec: 2, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while received.count < 65_536, !(received.count >= 4 && Array(received.suffix(4)) == [13, 10, 13, 10]) {
                let n = recv(fd, &chunk, chunk.count, 0)
                guard n > 0 else { break }
                received += chunk[0..<n]
            }
            recorded.withLock { $0.append(String(decoding: received, as: UTF8.self)) }
            let conditional = String(decoding: received, as: UTF8.self).lowercased().contains("\r\nif-none-match:")
            let answer = Array((conditional ? "HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nConnection: close\r\n\r\n"
                                : "HTTP/1.1 200 OK\r\nETag: \"v1\"\r\nContent-Length: 5\r\nConnection: close\r\n\r\nBOARD").utf8)
            _ = answer.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            shutdown(fd, Int32(SHUT_WR))
            close(fd)
        }
    }

    func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
