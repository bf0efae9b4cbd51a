import Glibc
import Testing
@testable import LeaderboardServer
import WidgetTestSupport

/// The built `leaderboard-server`: next to the test bundle (`swift test` builds it there), else
/// in this package's `.build/debug`. A test fails (it does not skip) when it is missing.
private let executable: String? = {
    var candidates: [String] = []
    var path = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
    let n = readlink("/proc/self/exe", &path, path.count - 1)
    if n > 0 {
        let exe = String(decoding: path[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if let slash = exe.lastIndex(of: "/") { candidates.append(exe[..<slash] + "/leaderboard-server") }
    }
    let here = #filePath
    let suffix = "/Tests/LeaderboardServerTests/LeaderboardServerExecutableTests.swift"
    if here.hasSuffix(suffix) {
        candidates.append(here.dropLast(suffix.count) + "/.build/debug/leaderboard-server")
    }
    return candidates.first { access($0, X_OK) == 0 }
}()

/// CPU time (user + system) the process has used, in clock ticks (1/100 s), from /proc/PID/stat.
private func cpuTicks(_ pid: pid_t) -> Int? {
    let fd = open("/proc/\(pid)/stat", O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 4096)
    let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard n > 0, let paren = bytes[0..<n].lastIndex(of: UInt8(ascii: ")")) else { return nil }
    // After "pid (comm)": state is field 3; utime and stime are fields 14 and 15.
    let fields = bytes[(paren + 2)..<n].split(separator: 32)
    guard fields.count > 12, let user = Int(String(decoding: fields[11], as: UTF8.self)),
          let system = Int(String(decoding: fields[12], as: UTF8.self)) else { return nil }
    return user + system
}

/// The port in a `http://127.0.0.1:PORT/leaderboard` URL.
private func port(of url: String) throws -> UInt16 {
    try #require(UInt16(url.dropFirst("http://127.0.0.1:".count).dropLast("/leaderboard".count)))
}

/// Waits (polling, bounded) until a fresh client's `/healthz` is answered `status`.
private func waitForStatus(_ status: Int, port: UInt16, within seconds: Int) -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds * ChildProcess.timeScale)
    while ContinuousClock.now < deadline {
        if let client = try? RawClient(port: port) {
            client.send(get("/healthz"))
            if (try? client.readResponse(timeout: .seconds(2)).status) == status { return true }
        }
        _ = poll(nil, 0, 50)
    }
    return false
}

/// With more connections open than the server can serve: a new client is answered at once
/// (503, or 200 once idle connections have been evicted to make room), the server idles
/// meanwhile (no accept loop spinning), and it serves again once the idle connections are gone.
private func expectOverloadHandled(server: ChildProcess, port: UInt16, idleConnections: Int,
                                   answers: Set<Int>) throws {
    var idle: [RawClient] = []
    for _ in 0..<idleConnections { idle.append(try RawClient(port: port)) }
    let asked = ContinuousClock.now
    let newcomer = try RawClient(port: port)
    newcomer.send(get("/healthz"))
    // "At once" on a 2-core machine running the whole suite: seconds, not the 30 s a stuck
    // accept loop would take.
    let answer = try newcomer.readResponse(timeout: .seconds(15 * ChildProcess.timeScale))
    #expect(answers.contains(answer.status), "answered \(answer.status)")
    #expect(ContinuousClock.now - asked < .seconds(5 * ChildProcess.timeScale))

    let before = try #require(cpuTicks(server.pid))
    _ = poll(nil, 0, 1000)   // one second of the server's life, measured from outside
    let after = try #require(cpuTicks(server.pid))
    #expect(after - before < 30, "the server used \(after - before) of 100 ticks while overloaded")

    idle.removeAll()
    #expect(waitForStatus(200, port: port, within: 20), "the server did not serve again")
}

@Suite("leaderboard-server executable", .serialized, .onOwnThreads)
struct LeaderboardServerExecutableTests {
    @Test("ulimit -n 64 and more idle connections than descriptors: 503 at once, no spinning, recovers")
    func descriptorLimitAtStart() throws {
        let path = try #require(executable, "leaderboard-server is not built")
        let server = try ChildProcess("/bin/sh", ["-c", "ulimit -n 64 && exec \"$0\" --port 0 --quiet", path])
        let port = try port(of: try server.firstLine(within: 20))
        // Within a second of opening them, the idle connections are too young to be evicted: 503.
        // On a machine slow enough to take longer, eviction may already have made room: 200.
        try expectOverloadHandled(server: server, port: port, idleConnections: 80, answers: [503, 200])
        server.signal(SIGTERM)
        #expect(try server.exitCode(within: 20) == 0)
    }

    @Test("descriptors running out while serving (limit lowered under it): 503 through the reserve, no spinning, recovers")
    func descriptorsExhaustedLater() throws {
        let path = try #require(executable, "leaderboard-server is not built")
        // Started with room for 192 connections; then the limit drops to 64 under it, so
        // accept itself fails with EMFILE long before the connection limit is reached.
        let server = try ChildProcess("/bin/sh", ["-c", "ulimit -n 256 && exec \"$0\" --port 0 --quiet", path])
        let port = try port(of: try server.firstLine(within: 20))
        let prlimit = try ChildSpawn.start(["/usr/bin/prlimit", "--pid", "\(server.pid)", "--nofile=64:"],
                                           environment: ["PATH=/usr/bin:/bin"], standardOutput: .inherit, standardError: .inherit)
        var status: Int32 = 0
        while waitpid(prlimit, &status, 0) < 0 && errno == EINTR {}
        try #require(status == 0, "prlimit failed")
        try expectOverloadHandled(server: server, port: port, idleConnections: 80, answers: [503])
        server.signal(SIGTERM)
        #expect(try server.exitCode(within: 20) == 0)
    }

    @Test("--log-limit bounds the request log: 300 pipelined requests, at most the limit a second plus summaries")
    func logLimit() throws {
        let path = try #require(executable, "leaderboard-server is not built")
        let server = try ChildProcess(path, ["--port", "0", "--log-limit", "5"])
        let port = try port(of: try server.firstLine(within: 20))
        let started = ContinuousClock.now
        let client = try RawClient(port: port)
        client.send(String(repeating: get("/healthz"), count: 299) + get("/healthz", "Connection: close\r\n"))
        for _ in 0..<300 { #expect(try client.readResponse().status == 200) }
        #expect(try client.readToEnd().isEmpty)
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        server.signal(SIGTERM)
        #expect(try server.exitCode(within: 20) == 0)
        let lines = server.standardError.split(separator: "\n")
        let requestLines = lines.filter { $0.hasPrefix("127.0.0.1 ") }
        #expect(requestLines.count >= 5)
        #expect(Double(requestLines.count) <= 5 * (seconds.rounded(.up) + 1), "\(requestLines.count) lines in \(seconds) s")
        // Every request is accounted for: logged, or counted in a summary (the last one on exit).
        let counted = lines.compactMap { line -> Int? in
            guard line.hasPrefix("… "), line.hasSuffix(" more requests not logged") else { return nil }
            return Int(line.dropFirst(2).prefix { $0 != " " })
        }
        #expect(!counted.isEmpty)
        #expect(requestLines.count + counted.reduce(0, +) == 300, "\(server.standardError)")
    }

    @Test("a stderr nobody reads does not stall the server: log lines are dropped and counted instead")
    func unreadStandardError() throws {
        let path = try #require(executable, "leaderboard-server is not built")
        let server = try ChildProcess(path, ["--port", "0", "--log-limit", "0"])
        let port = try port(of: try server.firstLine(within: 20))
        // Nothing reads the server's stderr from here on: a pipe holds 64 KiB, some 1,600 lines.
        let count = 5000
        let client = try RawClient(port: port)
        client.send(String(repeating: get("/healthz"), count: count - 1) + get("/healthz", "Connection: close\r\n"))
        for _ in 0..<count { #expect(try client.readResponse(timeout: .seconds(5 * ChildProcess.timeScale)).status == 200) }
        server.signal(SIGTERM)
        #expect(try server.exitCode(within: 20) == 0)
        #expect(server.standardError.contains(" log lines dropped (the log was not being read)"))
    }

    @Test("a SIGTERM or SIGINT sent the moment the URL is printed is never lost (40 starts)")
    func signalRightAfterStart() throws {
        let path = try #require(executable, "leaderboard-server is not built")
        for attempt in 0..<40 {
            let server = try ChildProcess(path, ["--port", "0", "--quiet"])
            _ = try server.firstLine(within: 20)
            server.signal(attempt % 2 == 0 ? SIGTERM : SIGINT)
            let code = try server.exitCode(within: 10)
            #expect(code == 0, "attempt \(attempt)")
            if code != 0 { return }
        }
    }

    @Test("--port 0 --quiet prints its URL first, serves /healthz, logs nothing, exits 0 on SIGTERM")
    func runsAndStops() throws {
        let server = try ChildProcess(try #require(executable, "leaderboard-server is not built"), ["--port", "0", "--quiet", "--seed", "1"])
        let url = try server.firstLine(within: 20)
        #expect(url.hasPrefix("http://127.0.0.1:") && url.hasSuffix("/leaderboard"))
        let port = try #require(UInt16(url.dropFirst("http://127.0.0.1:".count).dropLast("/leaderboard".count)))
        let client = try RawClient(port: port)
        client.send(get("/healthz"))
        let health = try client.readResponse()
        #expect(health.status == 200 && health.body == Array("ok".utf8))
        client.send(get("/leaderboard"))
        let board = try client.readResponse()
        #expect(board.status == 200 && board.headers["Content-Type"] == "application/json")
        #expect(String(decoding: board.body, as: UTF8.self).contains("{\"name\": \"Octo\", \"avatar\": \"🐙\""))
        server.signal(SIGTERM)
        #expect(try server.exitCode(within: 20) == 0)
        #expect(server.standardError.isEmpty)
    }

    @Test("without --quiet every request is logged on stderr; SIGINT also exits 0")
    func logsAndInterrupts() throws {
        let server = try ChildProcess(try #require(executable, "leaderboard-server is not built"), ["--port=0"])
        let url = try server.firstLine(within: 20)
        let port = try #require(UInt16(url.dropFirst("http://127.0.0.1:".count).dropLast("/leaderboard".count)))
        let client = try RawClient(port: port)
        client.send(get("/healthz"))
        _ = try client.readResponse()
        server.signal(SIGINT)
        #expect(try server.exitCode(within: 20) == 0)
        #expect(server.standardError.hasPrefix("127.0.0.1 \"GET /healthz\" 200 2 "))
        #expect(server.standardOutput == url + "\n")
    }

    @Test("a port in use: a clear message and exit 1")
    func portInUse() throws {
        let holder = HTTPServer(configuration: HTTPServerConfiguration(port: 0))
        let port = try holder.start()
        defer { holder.stop() }
        let server = try ChildProcess(try #require(executable, "leaderboard-server is not built"), ["--port", "\(port)"])
        #expect(try server.exitCode(within: 20) == 1)
        #expect(server.standardError == "leaderboard-server: cannot listen on 127.0.0.1:\(port): bind failed: Address already in use\n")
        #expect(server.standardOutput.isEmpty)
    }

    @Test("a bad argument: the message and exit 2")
    func badArgument() throws {
        let server = try ChildProcess(try #require(executable, "leaderboard-server is not built"), ["--tick", "0"])
        #expect(try server.exitCode(within: 20) == 2)
        #expect(server.standardError == "leaderboard-server: --tick: expected 1…86400, got 0\nsee 'leaderboard-server --help'\n")
    }
}
