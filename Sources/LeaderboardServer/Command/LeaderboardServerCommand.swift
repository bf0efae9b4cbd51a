import Glibc

/// The `leaderboard-server` program: parse the command line, serve until SIGTERM or SIGINT.
///
/// `main()` is all that `Sources/leaderboard-server/main.swift` calls. `parse(_:)` and
/// `run(_:standardOutput:standardError:)` are the testable parts.
public enum LeaderboardServerCommand {
    public static let version = "0.1.0"

    /// What the command line asks for: serve with these options, or finish at once.
    public enum Parsed: Sendable, Equatable {
        case run(LeaderboardServerOptions)
        /// `--help`, `--version` (exit 0) or a usage error (exit 2, message on stderr).
        case finish(CommandResult)
    }

    /// Parses the arguments (without the program name). Options take `--name VALUE` or
    /// `--name=VALUE`; a repeated option keeps its last value.
    public static func parse(_ arguments: [String]) -> Parsed {
        do {
            return try parseOrThrow(arguments)
        } catch {
            return .finish(CommandResult(exitCode: 2, standardError:
                "leaderboard-server: \(error.message)\nsee 'leaderboard-server --help'\n"))
        }
    }

    /// Runs the program and exits with its status.
    public static func main() -> Never {
        let result: CommandResult
        switch parse(Array(CommandLine.arguments.dropFirst())) {
        case .finish(let finished):
            result = finished
        case .run(let options):
            result = CommandResult(exitCode: run(options, standardOutput: { writeAll(1, $0) },
                                                 standardError: { writeAll(2, $0) }))
        }
        writeAll(1, result.standardOutput)
        writeAll(2, result.standardError)
        exit(result.exitCode)
    }

    /// Serves until SIGTERM or SIGINT, then stops cleanly and returns 0; returns 1 (after a
    /// message on `standardError`) if the server cannot start.
    ///
    /// Blocks SIGTERM and SIGINT in the calling thread (and so in every thread it starts) and
    /// waits for them with `sigwait`: call it from the main thread before starting others.
    ///
    /// The URL goes to `standardOutput` as one line as soon as the server listens; access-log
    /// lines go to `standardError` unless `quiet`. Both closures are called from other threads
    /// and must write through at once (no buffering: another program waits for the URL).
    public static func run(_ options: LeaderboardServerOptions,
                           standardOutput: @escaping @Sendable (String) -> Void,
                           standardError: @escaping @Sendable (String) -> Void) -> Int32 {
        // Blocked before any thread starts, so every thread inherits the mask and a SIGTERM or
        // SIGINT waits, pending, for the `sigwait` below. (Dispatch signal sources with the
        // signals ignored lost one now and then: a signal sent soon after start-up could be
        // discarded before the source was registered, and the server never stopped.)
        var stopSignals = sigset_t()
        sigemptyset(&stopSignals)
        sigaddset(&stopSignals, SIGTERM)
        sigaddset(&stopSignals, SIGINT)
        pthread_sigmask(SIG_BLOCK, &stopSignals, nil)

        // The request log goes through a queue of its own: a stderr nobody reads must not
        // hold connection threads (lines are dropped and counted instead).
        let logWriter = options.quiet ? nil : BackgroundLineWriter(destination: standardError)
        var log: (@Sendable (String) -> Void)?
        if let logWriter { log = { line in logWriter.write(line + "\n") } }
        let service = LeaderboardService(configuration: options.serviceConfiguration, log: log)
        do {
            try service.start()
        } catch {
            standardError("leaderboard-server: cannot listen on \(options.host):\(options.port): \(error)\n")
            return 1
        }
        standardOutput((service.url ?? "") + "\n")
        var received: Int32 = 0
        while sigwait(&stopSignals, &received) != 0 {}
        service.stop()
        logWriter?.finish(within: .seconds(2))
        return 0
    }

    static let help = """
        leaderboard-server: the Emoji Rangers leaderboard over HTTP, for the WidgetHost demo

        Usage:
          leaderboard-server [--host 127.0.0.1] [--port 8787] [--tick 3] [--seed N] [--quiet]
                             [--log-limit 50] [--keepalive 0] [--max-streams 64]
                             [--fail-rate F] [--delay-ms N] [--truncate-rate F] [--garbage-rate F]

        Serves GET /leaderboard (JSON with an ETag; If-None-Match gets 304 while the board is
        unchanged), GET /events (server-sent events: one "board" event, id the board's version,
        per change), POST /heroes/NAME/heal (NAME percent-encoded; 202, 404 unknown hero) and
        GET /healthz. Prints its URL on the first line of stdout and one line per
        request on stderr (at most --log-limit a second). Stops on SIGTERM or SIGINT.

        Options:
          --host ADDR          numeric IPv4 or IPv6 address to listen on (default 127.0.0.1)
          --port N             0…65535; 0 takes a free port (default 8787)
          --tick SECONDS       whole seconds between game ticks, at least 1 (default 3)
          --seed N             seed for the game and the faults (repeatable runs); default random
          --quiet              no request log on stderr
          --log-limit N        at most N request lines a second, then one line counting the
                               rest; 0 logs every request (default 50)
          --keepalive SECONDS  a comment on quiet /events streams this often; 0: none (default 0)
          --max-streams N      /events streams at once (default 64); past it a newcomer
                               takes the place of one open a minute, else gets 503
          --fail-rate F        answer 500 to this share of requests (0…1)
          --delay-ms N         hold every answer back N milliseconds (0…60000)
          --truncate-rate F    send half the body of this share of answers, then close (0…1)
          --garbage-rate F     replace the body of this share of answers with random bytes (0…1)
          -h, --help           show this help
          --version            print the version

        The three rates together may not exceed 1.

        """

    // MARK: - Parsing

    private struct UsageError: Error { let message: String }

    private static func parseOrThrow(_ arguments: [String]) throws(UsageError) -> Parsed {
        var options = LeaderboardServerOptions()
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            var name = argument
            var inline: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inline = String(argument[argument.index(after: equals)...])
            }
            func value() throws(UsageError) -> String {
                if let inline { return inline }
                guard index < arguments.count else { throw UsageError(message: "\(name) needs a value") }
                index += 1
                return arguments[index - 1]
            }
            switch name {
            case "-h", "--help", "--version", "--quiet":
                if inline != nil { throw UsageError(message: "\(name) takes no value") }
                switch name {
                case "--version": return .finish(CommandResult(exitCode: 0, standardOutput: "leaderboard-server \(version)\n"))
                case "--quiet": options.quiet = true
                default: return .finish(CommandResult(exitCode: 0, standardOutput: help))
                }
            case "--host":
                options.host = try numericHost(value(), option: name)
            case "--port":
                options.port = UInt16(try integer(value(), option: name, in: 0...65535))
            case "--tick":
                options.tickSeconds = try integer(value(), option: name, in: 1...86_400)
            case "--seed":
                let text = try value()
                guard let seed = UInt64(text) else {
                    throw UsageError(message: "\(name): expected a whole number 0…\(UInt64.max), got '\(text)'")
                }
                options.seed = seed
            case "--fail-rate": options.failRate = try rate(value(), option: name)
            case "--truncate-rate": options.truncateRate = try rate(value(), option: name)
            case "--garbage-rate": options.garbageRate = try rate(value(), option: name)
            case "--delay-ms": options.delayMilliseconds = try integer(value(), option: name, in: 0...60_000)
            case "--log-limit": options.logLimit = try integer(value(), option: name, in: 0...1_000_000)
            case "--keepalive": options.keepaliveSeconds = try integer(value(), option: name, in: 0...86_400)
            case "--max-streams": options.maxStreams = try integer(value(), option: name, in: 0...10_000)
            default:
                throw UsageError(message: argument.hasPrefix("-")
                    ? "unknown option '\(name)'" : "unexpected argument '\(argument)'")
            }
        }
        if options.failRate + options.truncateRate + options.garbageRate > 1 {
            throw UsageError(message: "--fail-rate, --truncate-rate and --garbage-rate add up to more than 1")
        }
        return .run(options)
    }

    private static func integer(_ text: String, option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        guard let value = Int(text) else {
            throw UsageError(message: "\(option): expected a whole number, got '\(text)'")
        }
        guard range.contains(value) else {
            throw UsageError(message: "\(option): expected \(range.lowerBound)…\(range.upperBound), got \(text)")
        }
        return value
    }

    private static func rate(_ text: String, option: String) throws(UsageError) -> Double {
        guard let value = Double(text), value.isFinite,
              text.utf8.allSatisfy({ $0 == UInt8(ascii: ".") || ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: "-") })
        else { throw UsageError(message: "\(option): expected a number 0…1, got '\(text)'") }
        guard (0...1).contains(value) else {
            throw UsageError(message: "\(option): expected a number 0…1, got \(text)")
        }
        return value
    }

    private static func numericHost(_ text: String, option: String) throws(UsageError) -> String {
        var v4 = in_addr()
        var v6 = in6_addr()
        guard inet_pton(AF_INET, text, &v4) == 1 || inet_pton(AF_INET6, text, &v6) == 1 else {
            throw UsageError(message: "\(option): expected a numeric IPv4 or IPv6 address, got '\(text)'")
        }
        return text
    }
}

/// Writes all of `text` to `fd` at once (no stdio buffering), retrying on EINTR.
func writeAll(_ fd: Int32, _ text: String) {
    var bytes = Array(text.utf8)
    var offset = 0
    while offset < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { return }
        offset += n
    }
}
