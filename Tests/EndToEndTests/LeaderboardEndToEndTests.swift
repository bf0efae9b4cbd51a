#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization
import Testing
import WidgetTestSupport

/// The live leaderboard with the real binaries: `widgethost` in tmux, and either its bundled
/// server (the default dashboard) or a `leaderboard-server` started here on 127.0.0.1, port 0.
///
/// Each test has its own HOME and state directory. Every wait polls for a condition under a
/// deadline scaled by `TestTimeScale`; nothing sleeps.
@Suite("leaderboard, end to end", .serialized, .onOwnThreads)
struct LeaderboardEndToEndTests {
    // MARK: - Default dashboard

    @Test("the default dashboard shows all six heroes and the system panel with aligned borders within 5 s at 80x24 and at 100x30",
          arguments: [(cols: 80, rows: 24), (cols: 100, rows: 30)])
    func defaultDashboard(size: (cols: Int, rows: Int)) throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let host = LeaderboardHost(home: home, size: size)
        defer { host.stop() }
        try host.start()
        let screen = host.tmux.waitFor(timeout: .seconds(5), description: "all six heroes and CPU use at \(size.cols)x\(size.rows)") {
            showsAllHeroes($0) && showsSystem($0) && boxProblems($0).isEmpty
        }
        expectWholeBoard(screen, cols: size.cols)
        #expect(showsSystem(screen), "no system panel with CPU use and memory:\n\(text(screen))")
    }

    @Test("the default dashboard fills its panels (DESIGN.md §9): no blank rectangle over a third of a panel's inside at 80x24, 100x30, 160x48 and 200x60",
          arguments: [(cols: 80, rows: 24), (cols: 100, rows: 30), (cols: 160, rows: 48), (cols: 200, rows: 60)])
    func noHoles(size: (cols: Int, rows: Int)) throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let host = LeaderboardHost(home: home, size: size)
        defer { host.stop() }
        try host.start()
        // The screen as the terminal shows it, read from the borders (the panels' boxes).
        func holes(_ screen: [String]) -> [PanelBlankAreas.Panel] { PanelBlankAreas(grid: ScreenGrid(screen).rows).holes() }
        let screen = host.tmux.waitFor(timeout: .seconds(10), description: "the default dashboard with no hole at \(size.cols)x\(size.rows)") {
            showsAllHeroes($0) && showsSystem($0) && boxProblems($0).isEmpty && holes($0).isEmpty
        }
        let panels = PanelBlankAreas(grid: ScreenGrid(screen).rows).panels
        #expect(panels.map(\.title) == ["Ranger Leaderboard", "Spouty", "Clock", "System"], "\(panels)\n\(text(screen))")
        #expect(holes(screen).isEmpty, "\(holes(screen).map(\.description).joined(separator: "; "))\n\(text(screen))")
    }

    @Test("every example on the leaderboard server fills its panels too, at 80x24, 100x30, 160x48 and 200x60 (short texts excepted)",
          arguments: ["leaderboard.json", "every-widget.json", "pages.json"], [(cols: 80, rows: 24), (cols: 100, rows: 30),
                                                                               (cols: 160, rows: 48), (cols: 200, rows: 60)])
    func examplesHaveNoHoles(example: String, size: (cols: Int, rows: Int)) throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let host = LeaderboardHost(home: home, size: size)
        defer { host.stop() }
        let server = try host.startServer(["--quiet"])
        defer { server.stop() }
        var root = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        root.removeLast(3)  // Tests/EndToEndTests/LeaderboardEndToEndTests.swift
        // The example as written, pointed at this test's server instead of 127.0.0.1:8787.
        let base = String(server.url.dropLast("/leaderboard".count))
        let source = try FileContents.text(at: root.joined(separator: "/") + "/Examples/" + example)
            .replacing("http://127.0.0.1:8787", with: base)
        try host.start(config: try home.write(example, source))
        func holes(_ screen: [String]) -> [PanelBlankAreas.Panel] {
            PanelBlankAreas(grid: ScreenGrid(screen).rows).holes(except: ["Disk", "Note"])
        }
        let screen = host.tmux.waitFor(timeout: .seconds(15), description: "\(example) with no hole at \(size.cols)x\(size.rows)") {
            anyRow($0, containsAll: "Octo") && boxProblems($0).isEmpty && holes($0).isEmpty
        }
        #expect(holes(screen).isEmpty, "\(holes(screen).map(\.description).joined(separator: "; "))\n\(text(screen))")
    }

    /// The system panel with a measured CPU use (a second reading came) and memory.
    func showsSystem(_ screen: [String]) -> Bool {
        screen.contains { $0.contains("┌ System ") }
            && screen.contains { $0.contains("│CPU ") && $0.contains("%│") }
            && screen.contains { $0.contains("│Mem ") }
    }

    @Test("a storm of 40 resizes, ending at 100x30, leaves the board whole")
    func resizeStorm() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        // Starts at 80x24, so a program that missed the resizes would not fill 100 columns.
        let host = LeaderboardHost(home: home, size: (cols: 80, rows: 24))
        defer { host.stop() }
        try host.start()
        host.tmux.waitFor(description: "all six heroes") { showsAllHeroes($0) }
        let sizes = [(120, 40), (70, 20), (140, 35), (90, 26), (80, 24)]
        for step in 0..<39 {
            let (cols, rows) = sizes[step % sizes.count]
            try host.tmux.resize(cols: cols, rows: rows)
        }
        try host.tmux.resize(cols: 100, rows: 30)
        let screen = host.tmux.waitFor(description: "the whole board at 100x30 after the storm") {
            $0.count == 30 && showsAllHeroes($0) && boxProblems($0).isEmpty && rightmostBorder($0) == 99
        }
        expectWholeBoard(screen, cols: 100)
        #expect(try host.tmux.exitStatus == nil, "widgethost ended during the resize storm")
    }

    @Test("the border check finds a box row one column short, and a box without its bottom")
    func borderCheckCatchesBrokenBoxes() {
        let whole = ["┌ A ──┐┌ B ┐",
                     "│🐙 x ││ y │",
                     "└─────┘└───┘"]
        #expect(boxProblems(whole).isEmpty, "\(boxProblems(whole))")
        #expect(rightmostBorder(whole) == 11)
        let short = ["┌ A ──┐", "│🐙 x│", "└─────┘"]
        #expect(boxProblems(short).count == 1, "\(boxProblems(short))")
        #expect(boxProblems(["┌ A ──┐", "│ x   │"]).count == 1)
        #expect(!boxProblems([" nothing here "]).isEmpty)
    }

    @Test("closing the terminal ends widgethost: it does not linger on SIGHUP holding the state lock")
    func hangupEndsTheDashboard() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let host = LeaderboardHost(home: home)
        defer { host.stop() }
        try host.start()
        host.tmux.waitFor(description: "all six heroes") { showsAllHeroes($0) }
        let pid = try host.tmux.pid
        host.tmux.stop()  // kill-server: the pty closes and the program gets SIGHUP
        let ended = waitUntil(description: "widgethost \(pid) gone after its terminal closed") { kill(pid, 0) != 0 }
        if !ended { kill(pid, SIGTERM) }
    }

    // MARK: - An external server

    @Test("a server tick changes the panel with no key pressed")
    func tickChangesPanel() throws {
        try withServerAndHost(["--tick", "1", "--quiet"], refreshSeconds: 1) { host, _ in
            let first = host.tmux.waitFor(description: "the board") { showsAllHeroes($0) }
            let before = heroRows(first)
            let after = host.tmux.waitFor(description: "a hero's exp or health changing by itself") { screen in
                showsAllHeroes(screen) && heroRows(screen) != before
            }
            #expect(heroRows(after) != before)
            expectWholeBoard(after)
        }
    }

    @Test("r fetches at once: the server logs a new request long before refreshSeconds")
    func reloadKeyFetches() throws {
        try withServerAndHost(["--tick", "1"], refreshSeconds: 3600) { host, server in
            host.tmux.waitFor(description: "the board") { showsAllHeroes($0) }
            // The log line may be written just after the answer that drew the board.
            waitUntil(description: "the first request in the server's log") { !server.boardRequests.isEmpty }
            let before = server.boardRequests.count

            try host.tmux.sendText("r")
            waitUntil(timeout: .seconds(3), description: "a new request after r (had \(before))") {
                server.boardRequests.count > before
            }
            #expect(try host.tmux.exitStatus == nil)
        }
    }

    @Test("with the server stopped the board stays, marked with the error and its age; it recovers when the server is back")
    func serverDownAndBack() throws {
        try withServerAndHost(["--tick", "1", "--quiet"], refreshSeconds: 1) { host, server in
            host.tmux.waitFor(description: "the board, up to date") { showsAllHeroes($0) && footer($0)?.contains("updated") == true }

            server.stop()
            let stale = host.tmux.waitFor(timeout: .seconds(15), description: "the board with a ⚠ line") { screen in
                showsAllHeroes(screen) && isStaleFooter(footer(screen))
            }
            expectWholeBoard(stale)
            #expect(isStaleFooter(footer(stale)), "footer: \(footer(stale) ?? "none")")

            let again = try server.restart()
            defer { again.stop() }
            let recovered = host.tmux.waitFor(timeout: .seconds(20), description: "the ⚠ line gone once the server is back") { screen in
                showsAllHeroes(screen) && footer(screen)?.contains("updated") == true && !text(screen).contains("⚠")
            }
            expectWholeBoard(recovered)
        }
    }

    @Test("an answer that is not JSON, or is cut short, shows a clear error and the program keeps running",
          arguments: [(option: "--garbage-rate", reason: "not a leaderboard"),
                      (option: "--truncate-rate", reason: "connection closed")])
    func badAnswers(fault: (option: String, reason: String)) throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let host = LeaderboardHost(home: home)
        defer { host.stop() }
        let server = try host.startServer(["--tick", "1", "--quiet", fault.option, "1"])
        defer { server.stop() }
        try host.start(config: host.config(url: server.url, refreshSeconds: 1))
        let screen = host.tmux.waitFor(timeout: .seconds(15), description: "a ⚠ line saying \(fault.reason)") { screen in
            footer(screen).map { $0.contains("⚠") && $0.contains(fault.reason) } ?? false
        }
        #expect(boxProblems(screen).isEmpty, "\(boxProblems(screen))")

        #expect(try host.tmux.exitStatus == nil, "widgethost ended")
        try host.tmux.sendText("?")
        host.tmux.waitFor(description: "the help box") { anyRow($0, containsAll: "r", "reload the focused panel") }
        try host.tmux.sendKeys("Escape")
        host.tmux.waitFor(description: "the help box closed") { !anyRow($0, containsAll: "reload the focused panel") }
        try host.tmux.sendText("q")
        #expect(host.tmux.waitForExit() == .exited(0))
    }

    @Test("a hostile server (a hero recovering at 1e-300/h, then Retry-After: 86400000) leaves the dashboard running, the board shown, the wait capped; r fetches at once")
    func hostileServer() throws {
        let server = try CannedHTTPServer()
        defer { server.stop() }
        server.answer(status: "200 OK", headers: ["Content-Type: application/json"], body: Self.boardWithTinyRate)
        let home = try ScratchDirectory()
        defer { home.remove() }
        let host = LeaderboardHost(home: home)
        defer { host.stop() }
        try host.start(config: host.config(url: "http://127.0.0.1:\(server.port)/leaderboard", refreshSeconds: 1))
        host.tmux.waitFor(description: "the board, Power Panda never quite recovering") { screen in
            showsAllHeroes(screen) && anyRow(screen, containsAll: "Forest Dweller · full health in >99999d")
        }

        server.answer(status: "429 Too Many Requests", headers: ["Retry-After: 86400000"], body: "")
        let waiting = host.tmux.waitFor(timeout: .seconds(15), description: "a ⚠ line saying when it retries") { screen in
            footer(screen).map { $0.hasPrefix("⚠ ") && $0.contains("· retry in ") } ?? false
        }
        expectWholeBoard(waiting)
        let line = footer(waiting) ?? ""
        let seconds = line.ranges(of: "· retry in ").last.map { Int(line[$0.upperBound...].prefix { $0.isNumber }) ?? -1 } ?? -1
        #expect((1...300).contains(seconds), "the server's 1000 days are capped at the transport's 300 s: \(line)")
        #expect(try host.tmux.exitStatus == nil)

        let before = server.requestCount
        server.answer(status: "200 OK", headers: ["Content-Type: application/json"], body: Self.boardWithTinyRate)
        try host.tmux.sendText("r")
        let recovered = host.tmux.waitFor(timeout: .seconds(10), description: "r fetched despite the stored wait") { screen in
            footer(screen)?.contains("updated") == true
        }
        expectWholeBoard(recovered)
        #expect(server.requestCount > before)
    }

    // MARK: - Restarts

    @Test("a host SIGKILLed during a slow fetch takes the fetch up again on restart and shows the board",
          arguments: [false, true])
    func killedDuringSlowFetch(configureAnotherServer: Bool) throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let host = LeaderboardHost(home: home)
        defer { host.stop() }
        let slow = try host.startServer(["--tick", "1", "--delay-ms", "3000"])
        defer { slow.stop() }
        try host.start(config: host.config(url: slow.url, refreshSeconds: 3600))
        // "fetching…" is drawn from the timeline that started the download, after the journal
        // has recorded the task.
        host.tmux.waitFor(description: "fetching… (the download under way)") { anyRow($0, containsAll: "fetching…") }
        try host.tmux.kill(signal: SIGKILL)
        #expect(host.tmux.waitForExit() == .signalled(SIGKILL))
        #expect(!showsAllHeroes(try host.tmux.capture()), "the board arrived before the kill; the test proves nothing")
        let report = try host.sessionsReport()
        #expect(report.contains("in flight"), "widgethost sessions:\n\(report)")

        // The transfer restarts with the URL configured now: the same slow server, or another.
        let other = configureAnotherServer ? try host.startServer(["--tick", "1"]) : nil
        defer { other?.stop() }
        let config = try host.config(url: (other ?? slow).url, refreshSeconds: 3600)
        let restarted = LeaderboardHost(home: home)
        defer { restarted.stop() }
        try restarted.start(config: config)
        let screen = restarted.tmux.waitFor(timeout: .seconds(15), description: "the board after the restart") {
            showsAllHeroes($0) && footer($0)?.contains("updated") == true
        }
        expectWholeBoard(screen)
        let log = host.log
        #expect(log.contains("resumed 1 background transfer"), "widgethost.log:\n\(log)")
        // Every transfer finished and acknowledged, so the server has logged every request.
        waitUntil(description: "no task left in the journal") {
            (try? host.sessionsReport()).map { !$0.contains("task ") } ?? false
        }
        if let other {
            // The provider's first timeline may run before `resumeTasks`: it joins the suspended
            // task instead of starting a second download.
            #expect(other.boardRequests.count == 1, "requests to the server configured now: \(other.boardRequests)")
        }
    }

    @Test("a host restarted with the server down shows the last board it had, with the error and its age")
    func restartWithServerDown() throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let host = LeaderboardHost(home: home)
        defer { host.stop() }
        let server = try host.startServer(["--tick", "1", "--quiet"])
        defer { server.stop() }
        let config = try host.config(url: server.url, refreshSeconds: 1)
        try host.start(config: config)
        host.tmux.waitFor(description: "the board, up to date") { showsAllHeroes($0) && footer($0)?.contains("updated") == true }
        try host.tmux.sendText("q")
        #expect(host.tmux.waitForExit() == .exited(0))
        server.stop()

        let restarted = LeaderboardHost(home: home)
        defer { restarted.stop() }
        try restarted.start(config: config)
        let screen = restarted.tmux.waitFor(timeout: .seconds(15), description: "the last board with a ⚠ line") { screen in
            showsAllHeroes(screen) && isStaleFooter(footer(screen))
        }
        expectWholeBoard(screen)
    }
}

// MARK: - Fixture

/// One widgethost in a private tmux server, on a HOME (and state directory `HOME/state`) the
/// test owns: a second one on the same HOME is a restart.
private final class LeaderboardHost {
    let home: ScratchDirectory
    let tmux = TmuxHarness()
    let size: (cols: Int, rows: Int)
    var stateDirectory: String { home.path + "/state" }

    init(home: ScratchDirectory, size: (cols: Int, rows: Int) = (100, 30)) {
        self.home = home
        self.size = size
    }

    /// Starts `widgethost --state-dir STATE [--config CONFIG]`.
    func start(config: String? = nil) throws {
        var command = [try BuiltProducts.executable("widgethost"), "--state-dir", stateDirectory]
        if let config { command += ["--config", config] }
        try tmux.start(command: command, size: size, environment: TmuxHarness.isolatedEnvironment(home: home.path))
    }

    /// Ends widgethost with SIGTERM (it must exit) if it still runs, then the tmux server: a
    /// test never leaves a dashboard behind, whatever a hangup would do.
    func stop() {
        if (try? tmux.paneIsDead) == false {
            try? tmux.kill(signal: SIGTERM)
            tmux.waitForExit()
        }
        tmux.stop()
    }

    /// What `widgethost sessions --state-dir STATE` prints (it reads the journal only).
    func sessionsReport() throws -> String {
        let result = try Subprocess.run([try BuiltProducts.executable("widgethost"), "sessions", "--state-dir", stateDirectory],
                                        environment: TmuxHarness.isolatedEnvironment(home: home.path),
                                        timeout: TestTimeScale.scaled(.seconds(10)))
        return result.standardOutput + result.standardError
    }

    /// `<state>/widgethost.log`.
    var log: String { (try? FileContents.text(at: stateDirectory + "/widgethost.log")) ?? "" }

    /// A `leaderboard-server` on 127.0.0.1, a free port, its output files in HOME.
    func startServer(_ arguments: [String]) throws -> LeaderboardProcess {
        try LeaderboardProcess.start(arguments: arguments, logDirectory: home.path)
    }

    /// Writes a config with one large leaderboard panel on `url` and returns its path.
    func config(url: String, refreshSeconds: Int) throws -> String {
        try home.write("config.json", """
            {"minimumReloadSeconds": 1,
             "panels": [{"kind": "leaderboard", "family": "large", "title": "Board",
                         "options": {"url": "\(url)", "refreshSeconds": \(refreshSeconds)}}]}
            """)
    }

}

/// Helpers are members, so they shadow any same-named helper of another end-to-end file.
private extension LeaderboardEndToEndTests {
    /// The seed roster, Power Panda recovering at 1e-300 per hour: its time to full health
    /// overflowed `Int` and trapped the views.
    static let boardWithTinyRate = """
        {"updated": "2026-11-30T05:00:00Z", "heroes": [
         {"name": "Power Panda", "avatar": "🐼", "heroType": "Forest Dweller", "level": 3, "exp": 600, "health": 0.14, "healthRecoveryRatePerHour": 1e-300},
         {"name": "Egghead", "avatar": "🦄", "heroType": "Wizard", "level": 5, "exp": 1000, "health": 0.67, "healthRecoveryRatePerHour": 0.22},
         {"name": "Spouty", "avatar": "🐳", "heroType": "Spouter", "level": 50, "exp": 20000, "health": 0.99, "healthRecoveryRatePerHour": 0.59},
         {"name": "Mr. Spook", "avatar": "💀", "heroType": "Calaca", "level": 13, "exp": 2640, "health": 0.14, "healthRecoveryRatePerHour": 0.25},
         {"name": "Cake", "avatar": "🎂", "heroType": "Baker", "level": 15, "exp": 3121, "health": 0.67, "healthRecoveryRatePerHour": 0.22},
         {"name": "Octo", "avatar": "🐙", "heroType": "Octopus", "level": 43, "exp": 86463, "health": 0.83, "healthRecoveryRatePerHour": 0.29}]}
        """

    // MARK: - Setting up

    /// Starts a `leaderboard-server` with `serverArguments` and a host on a fresh HOME whose
    /// config points at it, runs `body`, then stops both and deletes HOME.
    func withServerAndHost(_ serverArguments: [String], refreshSeconds: Int,
                           _ body: (LeaderboardHost, LeaderboardProcess) throws -> Void) throws {
        let home = try ScratchDirectory()
        defer { home.remove() }
        let host = LeaderboardHost(home: home)
        defer { host.stop() }
        let server = try host.startServer(serverArguments)
        defer { server.stop() }
        try host.start(config: host.config(url: server.url, refreshSeconds: refreshSeconds))
        try body(host, server)
    }

    // MARK: - Reading the screen

    static let heroes = [("Octo", "🐙"), ("Spouty", "🐳"), ("Cake", "🎂"),
                          ("Mr. Spook", "💀"), ("Egghead", "🦄"), ("Power Panda", "🐼")]

    /// Whether every hero's row (`🐙 Octo`) is on the screen.
    func showsAllHeroes(_ screen: [String]) -> Bool {
        Self.heroes.allSatisfy { name, avatar in screen.contains { $0.contains("\(avatar) \(name)") } }
    }

    /// The rows that show a hero (avatar, name, level, exp, health bar), top to bottom.
    func heroRows(_ screen: [String]) -> [String] {
        screen.filter { row in Self.heroes.contains { row.contains("\($0.1) \($0.0)") } }
    }

    /// The leaderboard's last content row: "updated …" or "⚠ …", without the box's borders.
    func footer(_ screen: [String]) -> String? {
        for row in screen.reversed() {
            guard let start = row.firstRange(of: "│updated ") ?? row.firstRange(of: "│⚠ ") else { continue }
            let content = row[row.index(after: start.lowerBound)...].prefix { $0 != "│" }
            return String(content.reversed().drop { $0 == " " }.reversed())
        }
        return nil
    }

    /// "⚠ <reason> · board Nm old"
    func isStaleFooter(_ footer: String?) -> Bool {
        guard let footer else { return false }
        return footer.hasPrefix("⚠ ") && footer.contains("· board ") && footer.hasSuffix(" old")
    }

    /// All six heroes, whole boxes and, given `cols`, boxes that reach the last column.
    func expectWholeBoard(_ screen: [String], cols: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(showsAllHeroes(screen), "not all six heroes:\n\(text(screen))", sourceLocation: sourceLocation)
        let problems = boxProblems(screen)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))\n\(text(screen))", sourceLocation: sourceLocation)
        if let cols {
            #expect(rightmostBorder(screen) == cols - 1, "the boxes do not fill \(cols) columns:\n\(text(screen))",
                    sourceLocation: sourceLocation)
        }
    }

    /// The display column of the right-most `┐` on the screen.
    func rightmostBorder(_ screen: [String]) -> Int? {
        ScreenGrid(screen).rows.compactMap { $0.lastIndex(of: "┐") }.max()
    }

    /// What is wrong with the boxes on `screen` (see `ScreenGrid.boxes()`); a screen without
    /// boxes is a problem too.
    func boxProblems(_ screen: [String]) -> [String] {
        let (boxes, problems) = ScreenGrid(screen).boxes()
        return boxes.isEmpty && problems.isEmpty ? ["no box on the screen"] : problems
    }

    // MARK: - Waiting for things other than the screen

    /// Polls `condition` every 20 ms until it holds or `timeout` (scaled) passes; records an issue
    /// naming `description` when it never held.
    @discardableResult
    func waitUntil(timeout: Duration = .seconds(10), description: String,
                           sourceLocation: SourceLocation = #_sourceLocation, _ condition: () -> Bool) -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: TestTimeScale.scaled(timeout))
        while !condition() {
            if clock.now >= deadline {
                Issue.record("timed out after \(TestTimeScale.scaled(timeout)) waiting for: \(description)", sourceLocation: sourceLocation)
                return false
            }
            usleep(20_000)
        }
        return true
    }
}

/// A one-thread HTTP/1.1 server on 127.0.0.1 (a free port) giving every request the answer
/// set last, with `Connection: close`: a server that says what a test wants, hostile included.
private final class CannedHTTPServer: Sendable {
    private struct Answer { var head: String; var body: [UInt8] }
    private let current = Mutex(Answer(head: "HTTP/1.1 404 Not Found\r\n", body: []))
    private let requests = Mutex(0)
    private let listener: Int32
    let port: Int

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddr in
                bind(fd, sockaddr, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, sockaddr, &length) == 0
            }
        }
        guard fd >= 0, bound else { throw HarnessError("cannot listen on 127.0.0.1: errno \(errno)") }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        DispatchQueue(label: "canned-http-server").async { [self] in serve() }
    }

    /// Every request from now on gets this answer.
    func answer(status: String, headers: [String], body: String) {
        let bytes = Array(body.utf8)
        let head = (["HTTP/1.1 \(status)", "Content-Length: \(bytes.count)", "Connection: close"] + headers)
            .joined(separator: "\r\n") + "\r\n"
        current.withLock { $0 = Answer(head: head, body: bytes) }
    }

    var requestCount: Int { requests.withLock { $0 } }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        Glibc.close(listener)
    }

    private func serve() {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return   // stopped
            }
            // Read the request head (bounded), then answer and close.
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while received.count < 65_536, !received.ends(with: Array("\r\n\r\n".utf8)) {
                let n = chunk.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                if n <= 0 { break }
                received += chunk[..<n]
            }
            requests.withLock { $0 += 1 }
            let answer = current.withLock { $0 }
            let bytes = Array((answer.head + "\r\n").utf8) + answer.body
            var sent = 0
            while sent < bytes.count {
                let n = bytes.withUnsafeBytes { send(connection, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) }
                if n <= 0 { break }
                sent += n
            }
            Glibc.close(connection)
        }
    }
}

private extension Array where Element == UInt8 {
    func ends(with suffix: [UInt8]) -> Bool { count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix }
}
