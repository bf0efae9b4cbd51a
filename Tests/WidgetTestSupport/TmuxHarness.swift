// TmuxHarness: runs a real binary in a private tmux server and reads its screen.
//
// Usage (Swift Testing; end-to-end suites are `.serialized`):
//
//     let home = try ScratchDirectory()
//     defer { home.remove() }
//     let tmux = try TmuxHarness()
//     defer { tmux.stop() }                      // deinit stops it too, even when a test fails
//     try tmux.start(command: [try BuiltProducts.executable("widgethost")],
//                    size: (cols: 100, rows: 30),
//                    environment: TmuxHarness.isolatedEnvironment(home: home.path),
//                    term: "xterm-256color")
//     tmux.waitFor(description: "the dashboard") { screen in screen.contains { $0.contains("Octo") } }
//     try tmux.sendKeys("Tab")                    // tmux key names: Tab, BTab, Enter, Escape, C-c, Up…
//     try tmux.sendText("q")                      // literal text (send-keys -l)
//     #expect(tmux.waitForExit() == .exited(0))
//
// - Every harness has its own server (`tmux -L widgethost-e2e-<pid>-<n>-<random> -f /dev/null`),
//   with `escape-time 0`, no status line (the pane is exactly COLSxROWS, checked after start
//   and resize), and `remain-on-exit on` with an empty `remain-on-exit-format`, so a finished
//   program leaves its last screen unchanged and its status readable. Two tmux 3.3a races
//   are worked around: output lost when a program exits quickly (see `start`; `runToExit`
//   for programs that print and exit) and a missed SIGCHLD that leaves the exit status empty
//   (see `exitStatus`).
// - The program sees exactly `environment` plus `TERM=term`: it runs as
//   `env -i K=V… TERM=term COMMAND…`, which execs the command (so `pid` is the program's pid and
//   tmux's own TMUX/TMUX_PANE/TERM do not leak in). `isolatedEnvironment(home:)` gives a
//   UTF-8 locale, a PATH and a private HOME/XDG directories so no user config is read.
// - Waits poll the screen (every 50 ms) until a condition holds, up to a deadline multiplied
//   by `WIDGETHOST_TEST_TIMESCALE` (see `TestTimeScale`); on timeout they record an issue
//   that shows the last screen. There is no fixed sleep anywhere.
// - tmux commands run through `Subprocess` (posix_spawn + waitpid), not Foundation.Process.
// - `stop()` (also run by deinit) SIGKILLs a program still running, kills the server, waits
//   until `tmux -L <socket> ls` fails and removes the socket file, which tmux 3.3 leaves
//   behind after `kill-server`.
//
// One harness drives one session from one test; it is not thread-safe.

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import Testing

/// A private tmux server running one program in one pane, for end-to-end tests.
public final class TmuxHarness {
    /// The `-L` socket name of this harness's server (unique per harness).
    public let socketName: String

    /// The limit for one tmux command (scaled by `TestTimeScale`).
    private let commandTimeout: Duration
    private let session = "e2e"
    /// The server's socket file, known once `start` has run.
    public private(set) var socketPath: String?
    private var started = false
    private var stopped = false

    private static let counter = Atomic<Int>(0)

    /// Creates the harness; no server runs until `start`.
    ///
    /// - Parameter commandTimeout: how long a single tmux command may take before it is killed
    ///   and reported (multiplied by `TestTimeScale.factor`).
    public init(commandTimeout: Duration = .seconds(10)) {
        let serial = Self.counter.wrappingAdd(1, ordering: .relaxed).newValue
        socketName = "widgethost-e2e-\(getpid())-\(serial)-\(UInt32.random(in: 0...UInt32.max))"
        self.commandTimeout = commandTimeout
    }

    deinit {
        stop()
    }

    // MARK: - Environment

    /// An environment for a program under test that reads nothing of the user's: a UTF-8
    /// locale, a standard PATH, and HOME, XDG_CONFIG_HOME, XDG_STATE_HOME under `home`.
    /// No proxy variables (DESIGN.md §5: loopback requests must not go through a proxy).
    public static func isolatedEnvironment(home: String, adding extra: [String: String] = [:]) -> [String: String] {
        var environment = [
            "LANG": "C.UTF-8",
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": home,
            "XDG_CONFIG_HOME": home + "/.config",
            "XDG_STATE_HOME": home + "/.local/state",
        ]
        environment.merge(extra) { _, new in new }
        return environment
    }

    // MARK: - Starting

    /// Starts the server and runs `command` in a new detached session of `size`.
    ///
    /// The program's environment is exactly `environment` with `TERM` set to `term` (a `TERM`
    /// in `environment` is replaced). Throws if tmux fails or the pane does not have `size`.
    public func start(command: [String], size: (cols: Int, rows: Int) = (100, 30),
                      environment: [String: String], term: String = "xterm-256color",
                      workingDirectory: String? = nil) throws(HarnessError) {
        guard !started else { throw HarnessError("start called twice on one harness") }
        guard !command.isEmpty else { throw HarnessError("start: empty command") }
        guard size.cols > 0, size.rows > 0 else { throw HarnessError("start: size must be positive, got \(size)") }
        if let bad = command.first(where: { $0.hasSuffix(";") }) {
            // tmux would read an argument ending in ';' as a command separator.
            throw HarnessError("start: argument \(bad.debugDescription) ends with ';', which tmux treats as a separator")
        }
        var programEnvironment = environment
        programEnvironment["TERM"] = term
        if let bad = programEnvironment.keys.first(where: { $0.isEmpty || $0.contains("=") }) {
            throw HarnessError("start: invalid environment variable name \(bad.debugDescription)")
        }
        guard !command[0].contains("=") else {
            throw HarnessError("start: program \(command[0].debugDescription) contains '=', which env would read as a variable")
        }
        started = true

        let assignments = programEnvironment.map { "\($0.key)=\($0.value)" }.sorted()
        var newSession = ["new-session", "-d", "-s", session, "-x", "\(size.cols)", "-y", "\(size.rows)"]
        if let workingDirectory { newSession += ["-c", workingDirectory] }
        newSession += ["--", "/usr/bin/env", "-i"] + assignments + command
        // One client invocation: the options are in place before the program can exit.
        // pipe-pane only to work around tmux 3.3a losing output: when the program's SIGCHLD is
        // handled before its last output is read from the pty, tmux closes the pty and drops
        // that output (a quick command's whole screen, ~1 run in 75 under load). With a
        // pipe-pane open, tmux first checks FIONREAD and waits for the unread bytes.
        try tmux(["start-server", ";",
                  "set-option", "-g", "status", "off", ";",
                  "set-option", "-g", "escape-time", "0", ";",
                  "set-option", "-g", "remain-on-exit", "on", ";",
                  "set-option", "-g", "remain-on-exit-format", "", ";",
                  "set-option", "-g", "history-limit", "10000", ";"] + newSession
                 + [";", "pipe-pane", "-O", "-t", session, "cat >/dev/null"])
        socketPath = try display("#{socket_path}")
        try expectSize(cols: size.cols, rows: size.rows, after: "start")
    }

    /// Runs a program that prints and exits, in a fresh harness, and returns how it ended and
    /// everything it printed (scrollback included).
    ///
    /// Even with the `pipe-pane` of `start`, tmux 3.3a still drops all of a quick program's
    /// output about once in 450 runs: the pty's last bytes are not yet readable on the master
    /// side (the kernel moves them there from a work queue) when tmux handles SIGCHLD, so
    /// FIONREAD says 0 and the pane is closed unread. When the screen comes back blank the run
    /// is repeated once, in a new server; a program that really prints nothing is blank twice.
    public static func runToExit(command: [String], size: (cols: Int, rows: Int) = (100, 30),
                                 environment: [String: String], term: String = "xterm-256color",
                                 timeout: Duration = .seconds(10),
                                 sourceLocation: SourceLocation = #_sourceLocation) throws(HarnessError)
        -> (exit: PaneExit?, screen: [String]) {
        var attempt = 0
        while true {
            attempt += 1
            let tmux = TmuxHarness()
            defer { tmux.stop() }
            try tmux.start(command: command, size: size, environment: environment, term: term)
            let exit = tmux.waitForExit(timeout: timeout, sourceLocation: sourceLocation)
            let screen = try tmux.capture(history: true)
            let blank = screen.allSatisfy { $0.isEmpty }
            if !blank || exit == nil || attempt == 2 { return (exit, screen) }
        }
    }

    // MARK: - Input

    /// Sends tmux key names, one key per argument: `Tab`, `BTab`, `Enter`, `Escape`, `C-c`,
    /// `Up`, `F1`, `q`… (see "KEY BINDINGS" in tmux(1)). Use `sendText` for literal text.
    public func sendKeys(_ keys: String...) throws(HarnessError) {
        guard !keys.isEmpty else { return }
        try tmux(["send-keys", "-t", session, "--"] + keys)
    }

    /// Types `text` literally (`send-keys -l`): no key-name lookup, so `"Enter"` is five letters.
    public func sendText(_ text: String) throws(HarnessError) {
        try tmux(["send-keys", "-t", session, "-l", "--", text])
    }

    /// Resizes the window (and so the pane and the program's terminal) to `cols`x`rows`.
    public func resize(cols: Int, rows: Int) throws(HarnessError) {
        try tmux(["resize-window", "-t", session, "-x", "\(cols)", "-y", "\(rows)"])
        try expectSize(cols: cols, rows: rows, after: "resize")
    }

    /// The pane's size in cells.
    public func size() throws(HarnessError) -> (cols: Int, rows: Int) {
        let text = try display("#{pane_width} #{pane_height}")
        let parts = text.split(separator: " ").compactMap { Int($0) }
        guard parts.count == 2 else { throw HarnessError("unexpected pane size \(text.debugDescription)") }
        return (parts[0], parts[1])
    }

    // MARK: - Output

    /// The pane's visible rows, top to bottom, trailing spaces trimmed (one string per row).
    ///
    /// - Parameters:
    ///   - escapes: keep colour and attribute escape sequences (`capture-pane -e`).
    ///   - history: start from the oldest line of the scrollback, not the top of the screen
    ///     (for output longer than the pane).
    public func capture(escapes: Bool = false, history: Bool = false) throws(HarnessError) -> [String] {
        var arguments = ["capture-pane", "-p", "-t", session]
        if escapes { arguments.append("-e") }
        if history { arguments += ["-S", "-"] }
        var lines = try tmux(arguments).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    /// Polls the screen until `condition` holds and returns that screen.
    ///
    /// When `timeout` (multiplied by `TestTimeScale.factor`) passes first, records an issue
    /// naming `description` and showing the last screen, and returns that screen.
    @discardableResult
    public func waitFor(timeout: Duration = .seconds(10), description: String, history: Bool = false,
                        sourceLocation: SourceLocation = #_sourceLocation,
                        _ condition: ([String]) -> Bool) -> [String] {
        var last: [String] = []
        var lastError: HarnessError?
        let met = poll(timeout: timeout) {
            do throws(HarnessError) {
                last = try capture(history: history)
                lastError = nil
                return condition(last)
            } catch {
                lastError = error
                return false
            }
        }
        if !met {
            var message = "timed out after \(TestTimeScale.scaled(timeout)) waiting for: \(description)\n"
            if let lastError { message += "last capture failed: \(lastError)\n" }
            message += Self.render(screen: last)
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
        return last
    }

    // MARK: - The program

    /// Whether the program in the pane has ended (tmux has closed the pane's terminal).
    public var paneIsDead: Bool {
        get throws(HarnessError) { try display("#{pane_dead}") == "1" }
    }

    /// How the program ended, or nil while it runs (or tmux has not collected its status yet).
    ///
    /// tmux 3.3a sometimes misses the SIGCHLD of a pane's program (seen in about one start in
    /// five when the program exits within a few hundred milliseconds): the pane is dead, the
    /// program stays a zombie and `#{pane_dead_status}` stays empty for good. When the pane is
    /// dead without a status, this sends SIGCHLD to the tmux server, whose handler then reaps
    /// every exited child and records the status; the next query sees it.
    public var exitStatus: PaneExit? {
        get throws(HarnessError) {
            let fields = try display("#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}|#{pid}")
                .split(separator: "|", omittingEmptySubsequences: false)
            guard fields.count == 4 else { throw HarnessError("unexpected pane state \(fields)") }
            guard fields[0] == "1" else { return nil }
            if let status = Int32(fields[1]) { return .exited(status) }
            if let signal = Int32(fields[2]) { return .signalled(signal) }
            if let server = pid_t(fields[3]), server > 0 { _ = Glibc.kill(server, SIGCHLD) }
            return nil
        }
    }

    /// Polls until the program has ended and returns how; on timeout records an issue with the
    /// last screen and returns nil.
    @discardableResult
    public func waitForExit(timeout: Duration = .seconds(10),
                            sourceLocation: SourceLocation = #_sourceLocation) -> PaneExit? {
        var exit: PaneExit?
        var lastError: HarnessError?
        let ended = poll(timeout: timeout) {
            do throws(HarnessError) {
                exit = try exitStatus
                lastError = nil
            } catch {
                lastError = error
            }
            return exit != nil
        }
        if !ended {
            var message = "timed out after \(TestTimeScale.scaled(timeout)) waiting for the program to exit\n"
            if let lastError { message += "last query failed: \(lastError)\n" }
            message += Self.render(screen: (try? capture()) ?? [])
            Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
        }
        return exit
    }

    /// Whether the pane is on the alternate screen (`#{alternate_on}`): a full-screen program
    /// that exited without restoring the terminal leaves it on.
    public var alternateScreenIsOn: Bool {
        get throws(HarnessError) { try display("#{alternate_on}") == "1" }
    }

    /// Whether the pane shows its cursor (`#{cursor_flag}`): curses hides it while it draws.
    public var cursorIsVisible: Bool {
        get throws(HarnessError) { try display("#{cursor_flag}") == "1" }
    }

    /// The process id of the program in the pane.
    public var pid: pid_t {
        get throws(HarnessError) {
            let text = try display("#{pane_pid}")
            guard let pid = pid_t(text), pid > 0 else { throw HarnessError("unexpected pane pid \(text.debugDescription)") }
            return pid
        }
    }

    /// Sends `signal` (e.g. `SIGTERM`) to the program in the pane.
    public func kill(signal: Int32) throws(HarnessError) {
        let pid = try pid
        guard Glibc.kill(pid, signal) == 0 else {
            throw HarnessError("kill(\(pid), \(signal)) failed: \(String(cString: strerror(errno)))")
        }
    }

    /// Closes the pane's terminal as closing a terminal window does (`kill-pane`): the program
    /// gets SIGHUP and its terminal goes away. The server exits with its last pane.
    public func hangUp() throws(HarnessError) {
        try tmux(["kill-pane", "-t", session])
    }

    // MARK: - Stopping

    /// Kills the server (and with it the program), waits until it no longer answers and
    /// removes its socket. Safe to call more than once; deinit calls it.
    public func stop() {
        guard started, !stopped else { return }
        stopped = true
        // A program still running would only get SIGHUP from kill-server, and one that takes
        // SIGHUP as "reload" outlives its terminal (and the test run): end it for good first.
        if (try? paneIsDead) == false, let pid = try? pid { _ = Glibc.kill(pid, SIGKILL) }
        _ = try? tmux(["kill-server"])
        let gone = poll(timeout: commandTimeout) { !Self.serverResponds(socketName: socketName) }
        if !gone {
            Issue.record("tmux server \(socketName) still answers after kill-server")
        }
        if let socketPath { unlink(socketPath) }
    }

    /// Whether a tmux server answers on socket `socketName` (`tmux -L NAME ls` succeeds).
    public static func serverResponds(socketName: String) -> Bool {
        let result = try? Subprocess.run(["tmux", "-L", socketName, "list-sessions"],
                                         environment: clientEnvironment(),
                                         timeout: TestTimeScale.scaled(.seconds(10)))
        return result?.status == 0
    }

    /// Appends everything the program writes to its terminal from now on, escape sequences
    /// and all, to `path` (`pipe-pane -O`, in place of the one `start` keeps open): what the
    /// screen does not show (OSC 8 links).
    public func recordOutput(to path: String) throws(HarnessError) {
        guard !path.contains("'") else { throw HarnessError("recordOutput: a path with a quote") }
        try tmux(["pipe-pane", "-O", "-t", session, "exec /bin/cat >> '\(path)'"])
    }

    // MARK: - Helpers

    /// Runs one tmux client command against this harness's server and returns its stdout.
    @discardableResult
    private func tmux(_ arguments: [String]) throws(HarnessError) -> String {
        let command = ["tmux", "-L", socketName, "-f", "/dev/null"] + arguments
        let result: Subprocess.Result
        do {
            result = try Subprocess.run(command, environment: Self.clientEnvironment(),
                                        timeout: TestTimeScale.scaled(commandTimeout))
        } catch {
            throw HarnessError("tmux \(arguments.first ?? ""): \(error)")
        }
        guard result.status == 0 else {
            let detail = Self.trimmed(result.standardError)
            throw HarnessError("tmux \(arguments.joined(separator: " ")) failed with status \(result.status): \(detail)")
        }
        return result.standardOutput
    }

    /// Expands a tmux format for the pane (`display-message -p`).
    private func display(_ format: String) throws(HarnessError) -> String {
        Self.trimmed(try tmux(["display-message", "-p", "-t", session, format]))
    }

    private func expectSize(cols: Int, rows: Int, after step: String) throws(HarnessError) {
        let actual = try size()
        guard actual == (cols, rows) else {
            throw HarnessError("after \(step) the pane is \(actual.cols)x\(actual.rows), expected \(cols)x\(rows)")
        }
    }

    /// Evaluates `condition` every 50 ms until it holds (true) or the scaled timeout passes (false).
    private func poll(timeout: Duration, _ condition: () -> Bool) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: TestTimeScale.scaled(timeout))
        while true {
            if condition() { return true }
            if clock.now >= deadline { return false }
            usleep(50_000)
        }
    }

    /// Our environment without the variables that would tie the client to an enclosing tmux.
    private static func clientEnvironment() -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TMUX"] = nil
        environment["TMUX_PANE"] = nil
        return environment
    }

    /// `text` without trailing newlines and spaces.
    private static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return String(text)
    }

    /// A screen framed with row numbers, for failure messages.
    static func render(screen: [String]) -> String {
        var text = "last screen (\(screen.count) rows):\n"
        for (row, line) in screen.enumerated() {
            text += (row < 10 ? "   \(row) |" : "  \(row) |") + line + "|\n"
        }
        return text
    }
}
