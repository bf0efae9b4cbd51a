import Glibc
import Testing
@testable import LeaderboardServer

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

@Suite("leaderboard-server executable", .serialized)
struct LeaderboardServerExecutableTests {
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
