import Glibc
import Testing
import WidgetTestSupport
@testable import LeaderboardServer

private func options(_ arguments: [String]) -> LeaderboardServerOptions? {
    guard case .run(let options) = LeaderboardServerCommand.parse(arguments) else { return nil }
    return options
}

/// A service started from a command line, on a free port whatever the line says.
private func serviceFrom(_ arguments: [String]) throws -> (LeaderboardService, UInt16) {
    var config = try #require(options(arguments)).serviceConfiguration
    config.port = 0
    let service = LeaderboardService(configuration: config)
    return (service, try service.start())
}

struct UsageCase: Sendable, CustomTestStringConvertible {
    let arguments: [String]
    let message: String
    var testDescription: String { arguments.joined(separator: " ") }
}

private let usageCases = [
    UsageCase(arguments: ["--bogus"], message: "unknown option '--bogus'"),
    UsageCase(arguments: ["extra"], message: "unexpected argument 'extra'"),
    UsageCase(arguments: ["--port"], message: "--port needs a value"),
    UsageCase(arguments: ["--seed"], message: "--seed needs a value"),
    UsageCase(arguments: ["--port", "65536"], message: "--port: expected 0…65535, got 65536"),
    UsageCase(arguments: ["--port", "-1"], message: "--port: expected 0…65535, got -1"),
    UsageCase(arguments: ["--port", "80a"], message: "--port: expected a whole number, got '80a'"),
    UsageCase(arguments: ["--tick", "0"], message: "--tick: expected 1…86400, got 0"),
    UsageCase(arguments: ["--tick", "-3"], message: "--tick: expected 1…86400, got -3"),
    UsageCase(arguments: ["--tick", "1.5"], message: "--tick: expected a whole number, got '1.5'"),
    UsageCase(arguments: ["--seed", "x"], message: "--seed: expected a whole number 0…18446744073709551615, got 'x'"),
    UsageCase(arguments: ["--fail-rate", "1.5"], message: "--fail-rate: expected a number 0…1, got 1.5"),
    UsageCase(arguments: ["--truncate-rate", "-0.1"], message: "--truncate-rate: expected a number 0…1, got -0.1"),
    UsageCase(arguments: ["--garbage-rate", "lots"], message: "--garbage-rate: expected a number 0…1, got 'lots'"),
    UsageCase(arguments: ["--garbage-rate=nan"], message: "--garbage-rate: expected a number 0…1, got 'nan'"),
    UsageCase(arguments: ["--delay-ms", "soon"], message: "--delay-ms: expected a whole number, got 'soon'"),
    UsageCase(arguments: ["--delay-ms", "60001"], message: "--delay-ms: expected 0…60000, got 60001"),
    UsageCase(arguments: ["--host", "localhost"], message: "--host: expected a numeric IPv4 or IPv6 address, got 'localhost'"),
    UsageCase(arguments: ["--quiet=yes"], message: "--quiet takes no value"),
    UsageCase(arguments: ["--log-limit", "-1"], message: "--log-limit: expected 0…1000000, got -1"),
    UsageCase(arguments: ["--keepalive", "-1"], message: "--keepalive: expected 0…86400, got -1"),
    UsageCase(arguments: ["--max-streams", "x"], message: "--max-streams: expected a whole number, got 'x'"),
    UsageCase(arguments: ["--fail-rate", "0.5", "--garbage-rate", "0.6"],
              message: "--fail-rate, --truncate-rate and --garbage-rate add up to more than 1"),
]

@Suite("leaderboard-server command line")
struct LeaderboardServerCommandTests {
    @Test("no arguments: the defaults of DESIGN §4")
    func defaults() throws {
        let parsed = try #require(options([]))
        #expect(parsed == LeaderboardServerOptions())
        let config = parsed.serviceConfiguration
        #expect(config.host == "127.0.0.1" && config.port == 8787 && config.tickSeconds == 3 && config.seed == nil)
        #expect(config.faults == FaultInjection())
        #expect(config.accessLogLinesPerSecond == 50)
    }

    @Test("every option reaches the service configuration, the fault options its FaultInjection")
    func mapping() throws {
        let config = try #require(options([
            "--host", "::1", "--port=0", "--tick", "5", "--seed", "42", "--quiet",
            "--fail-rate", "0.25", "--delay-ms", "200", "--truncate-rate=0.5", "--garbage-rate", "0.125",
        ])).serviceConfiguration
        #expect(config.host == "::1" && config.port == 0 && config.tickSeconds == 5 && config.seed == 42)
        var expected = FaultInjection()
        expected.seed = 42
        expected.failureRate = 0.25
        expected.truncateRate = 0.5
        expected.garbageRate = 0.125
        expected.delay = .milliseconds(200)
        #expect(config.faults == expected)
        #expect(options(["--quiet"])?.quiet == true && options([])?.quiet == false)
        #expect(options(["--port", "1", "--port", "2"])?.port == 2)
        #expect(options(["--log-limit", "7"])?.serviceConfiguration.accessLogLinesPerSecond == 7)
        #expect(options(["--log-limit=0"])?.serviceConfiguration.accessLogLinesPerSecond == nil)
        #expect(options([])?.serviceConfiguration.keepaliveSeconds == 0)
        #expect(options([])?.serviceConfiguration.maxStreams == 64)
        #expect(options(["--keepalive", "15"])?.serviceConfiguration.keepaliveSeconds == 15)
        #expect(options(["--max-streams=3"])?.serviceConfiguration.maxStreams == 3)
    }

    @Test("bad arguments exit 2 with a one-line message and a pointer to --help", arguments: usageCases)
    func usageErrors(_ usage: UsageCase) {
        let parsed = LeaderboardServerCommand.parse(usage.arguments)
        #expect(parsed == .finish(CommandResult(exitCode: 2, standardError:
            "leaderboard-server: \(usage.message)\nsee 'leaderboard-server --help'\n")))
    }

    @Test("--help and --version print and exit 0")
    func helpAndVersion() {
        guard case .finish(let help) = LeaderboardServerCommand.parse(["--port", "1", "--help"]) else {
            Issue.record("--help did not finish")
            return
        }
        #expect(help.exitCode == 0 && help.standardError.isEmpty)
        for option in ["--host", "--port", "--tick", "--seed", "--quiet", "--fail-rate", "--delay-ms",
                       "--truncate-rate", "--garbage-rate", "--log-limit", "--keepalive", "--max-streams", "--version"] {
            #expect(help.standardOutput.contains(option))
        }
        #expect(LeaderboardServerCommand.parse(["-h"]) == .finish(help))
        #expect(LeaderboardServerCommand.parse(["--version"])
            == .finish(CommandResult(exitCode: 0, standardOutput: "leaderboard-server \(LeaderboardServerCommand.version)\n")))
    }

    @Test("--fail-rate 1 answers 500")
    func failRate() throws {
        let (service, port) = try serviceFrom(["--fail-rate", "1"])
        defer { service.stop() }
        let client = try RawClient(port: port)
        client.send(get("/leaderboard"))
        #expect(try client.readResponse().status == 500)
    }

    @Test("--garbage-rate 1 sends a body that is not the board and not JSON")
    func garbageRate() throws {
        let (service, port) = try serviceFrom(["--garbage-rate", "1", "--seed", "3"])
        defer { service.stop() }
        let client = try RawClient(port: port)
        client.send(get("/leaderboard"))
        let response = try client.readResponse()
        #expect(response.status == 200 && response.body.count == service.game.boardJSON().count)
        #expect(response.body != service.game.boardJSON())
        #expect(response.body.first != UInt8(ascii: "{"))
        // Seeded random bytes are not even UTF-8, let alone JSON.
        #expect(String(validating: response.body, as: UTF8.self) == nil)
    }

    @Test("--truncate-rate 1 sends less body than Content-Length says, then closes")
    func truncateRate() throws {
        let (service, port) = try serviceFrom(["--truncate-rate", "1"])
        defer { service.stop() }
        let client = try RawClient(port: port)
        client.send(get("/leaderboard"))
        let raw = try client.readToEnd()
        let text = String(decoding: raw, as: UTF8.self)
        let parts = text.split(separator: "\r\n\r\n", maxSplits: 1)
        let lengthLine = try #require(parts.first?.split(separator: "\r\n").first { $0.hasPrefix("Content-Length: ") })
        let announced = try #require(Int(lengthLine.dropFirst("Content-Length: ".count)))
        #expect(announced == service.game.boardJSON().count)
        let received = raw.count - (parts[0].utf8.count + 4)
        #expect(received < announced)
    }

    @Test("--delay-ms holds the answer back at least that long")
    func delay() throws {
        let (service, port) = try serviceFrom(["--delay-ms", "150"])
        defer { service.stop() }
        let client = try RawClient(port: port)
        let start = ContinuousClock.now
        client.send(get("/leaderboard"))
        #expect(try client.readResponse().status == 200)
        #expect(ContinuousClock.now - start >= .milliseconds(150))
    }
}
