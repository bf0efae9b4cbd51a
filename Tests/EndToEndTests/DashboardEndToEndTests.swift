#if canImport(Glibc)
import Glibc
#endif
import Foundation
import FoundationEssentials
import Testing
import WidgetTestSupport

// The running dashboard (`widgethost --config PATH --state-dir DIR`) in a real terminal: tmux.
// Every test writes its own clock-only config and has its own HOME and state directory;
// nothing here depends on the default dashboard's panels.

/// Four panels (large, two small, a medium stack) whose titles mix emoji, CJK and Hangul, so
/// a width mistake anywhere moves a border; the stack's title is too long for its box and for
/// the status bar, so both cut it.
private let wideTitles = """
{ "panels": [
    { "kind": "clock", "family": "large", "title": "Tokyo 🗼 東京",
      "options": { "timeZone": "Asia/Tokyo", "seconds": false } },
    { "kind": "clock", "family": "small", "title": "UTC 🕐", "options": { "timeZone": "UTC", "seconds": false } },
    { "kind": "clock", "family": "small", "title": "ベルリン", "options": { "timeZone": "Europe/Berlin", "seconds": false } },
    { "kind": "stack", "family": "medium", "title": "Asia 🐼 亜細亜 東京 서울 デリー 北京 上海 香港 台北 シンガポール ジャカルタ",
      "panels": [ { "kind": "clock", "title": "Seoul 서울", "options": { "timeZone": "Asia/Seoul", "seconds": false } },
                  { "kind": "clock", "title": "Kolkata", "options": { "timeZone": "Asia/Kolkata", "seconds": false } } ] }
] }
"""

/// Three small clocks, for focus, zoom and reloads.
private func clocks(_ titles: [String]) -> String {
    let panels = titles.map {
        #"{ "kind": "clock", "family": "small", "title": "\#($0)", "options": { "timeZone": "UTC", "seconds": false } }"#
    }
    return #"{ "panels": [ "# + panels.joined(separator: ", ") + " ] }"
}

@Suite("dashboard, end to end", .serialized, .onOwnThreads)
struct DashboardEndToEndTests {
    @Test("draws aligned boxes and the status bar on the last row", arguments: [
        (80, 24, "xterm"), (80, 24, "xterm-256color"), (80, 24, "tmux-256color"),
        (100, 30, "xterm"), (100, 30, "xterm-256color"), (100, 30, "tmux-256color"),
    ])
    func drawsAligned(cols: Int, rows: Int, term: String) throws {
        let session = try DashboardSession(config: wideTitles, size: (cols, rows), term: term)
        let screen = session.waitForDashboard(focused: "Tokyo 🗼 東京", boxes: 4)
        let (boxes, problems) = ScreenGrid(screen).boxes()
        #expect(problems.isEmpty, "\(problems)\n\(text(screen))")

        // Where the boxes should be: the same dashboard rendered by `widgethost snapshot`
        // (the text backend, no terminal involved).
        let expected = try session.snapshotBoxes()
        #expect(Set(boxes) == Set(expected), "on screen \(boxes), snapshot \(expected)\n\(text(screen))")
        // And, independently: panels fill the width and stop above the status bar.
        #expect(boxes.map(\.maxX).max() == cols, "\(boxes)")
        #expect(boxes.allSatisfy { $0.maxY <= rows - 1 }, "\(boxes)")
        for title in ["Tokyo 🗼 東京", "UTC 🕐", "ベルリン", "Asia 🐼 亜細亜", "Seoul 서울"] {
            #expect(screen.contains { $0.contains(title) }, "title \(title) not on screen\n\(text(screen))")
        }
        // The status bar ends in the last column ("q quit " with its trailing space trimmed),
        // also with the long wide title focused and cut.
        #expect(ScreenGrid(screen).rows.last?.count == cols - 1, "\(text(screen))")
        try session.tmux.sendKeys("BTab")
        let long = session.tmux.waitFor(description: "focus on the stack with the long title") { screen in
            statusBar(screen, rows: rows)?.hasPrefix(" widgethost │ Asia 🐼 亜細亜") == true
        }
        #expect(ScreenGrid(long).rows.last?.count == cols - 1, "\(text(long))")
        #expect(statusBar(long, rows: rows).map(hasClock) == true, "\(text(long))")
        #expect(ScreenGrid(long).boxes().problems.isEmpty, "\(text(long))")
        try session.quit()
    }

    @Test("Examples/every-widget.json, every kind, against a leaderboard-server: aligned boxes at 80x24, 100x30 and 200x60",
          arguments: [(80, 24), (100, 30), (200, 60)])
    func everyWidget(cols: Int, rows: Int) throws {
        let logs = try ScratchDirectory()
        defer { logs.remove() }
        let server = try LeaderboardProcess.start(arguments: ["--quiet"], logDirectory: logs.path)
        defer { server.stop() }
        let base = String(server.url.dropLast("/leaderboard".count))
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/EndToEndTests/DashboardEndToEndTests.swift
        let path = parts.joined(separator: "/") + "/Examples/every-widget.json"
        let example = try #require(FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) })
        let session = try DashboardSession(config: example.replacingOccurrences(of: "http://127.0.0.1:8787", with: base),
                                           size: (cols, rows))
        let screen = session.tmux.waitFor(timeout: .seconds(20), description: "every panel with data") { screen in
            let (boxes, problems) = ScreenGrid(screen).boxes()
            return boxes.count == 8 && problems.isEmpty && screen.contains { $0.contains("🐙 Octo") }
                && screen.contains { $0.contains("Name") && $0.contains("Octo") } && screen.contains { $0.contains("free of") }
        }
        let (boxes, problems) = ScreenGrid(screen).boxes()
        #expect(problems.isEmpty && boxes.count == 8, "\(problems)\n\(text(screen))")
        #expect(boxes.map(\.maxX).max() == cols, "\(boxes)")
        for title in ["Ranger Leaderboard", "Heroes", "UTC", "System", "Top ranger (JSON)", "Disk", "New Year", "Note"] {
            #expect(screen.contains { $0.contains("┌ " + title) }, "\(title)\n\(text(screen))")
        }
        try session.quit()
    }

    @Test("an unknown TERM: a clear error naming it, exit 1, and the screen is not taken over")
    func unknownTerm() throws {
        let session = try DashboardSession(config: clocks(["Alpha"]), size: (100, 30), term: "nonexistent-term")
        let exit = session.tmux.waitForExit()
        #expect(exit == .exited(1), "\(String(describing: exit))")
        let screen = try session.tmux.capture(history: true)
        #expect(anyRow(screen, containsAll: "unknown terminal type", "nonexistent-term"), "\(text(screen))")
        #expect(!ScreenGrid(screen).hasBoxDrawing, "\(text(screen))")
        #expect(try !session.tmux.alternateScreenIsOn)
    }

    @Test("Tab and Shift-Tab move the focus, ? shows the help and any key closes it, Enter zooms, Esc returns, p pauses")
    func keys() throws {
        let titles = ["Alpha", "Beta ☕ ベータ", "Gamma"]
        let session = try DashboardSession(config: clocks(titles), size: (80, 24))
        session.waitForDashboard(focused: "Alpha", boxes: 3)

        try session.tmux.sendKeys("Tab")
        session.waitForDashboard(focused: "Beta ☕ ベータ", boxes: 3)
        try session.tmux.sendKeys("Tab")
        session.waitForDashboard(focused: "Gamma", boxes: 3)
        try session.tmux.sendKeys("BTab")
        session.waitForDashboard(focused: "Beta ☕ ベータ", boxes: 3)

        try session.tmux.sendText("?")
        // The whole box: a capture can catch the terminal mid-frame, its top border drawn only.
        let help = session.tmux.waitFor(description: "the help box") { screen in
            anyRow(screen, containsAll: "┌ Keys") && anyRow(screen, containsAll: "q", "quit") && anyRow(screen, containsAll: "Tab", "next")
        }
        #expect(anyRow(help, containsAll: "Tab", "next"), "\(text(help))")
        #expect(anyRow(help, containsAll: "q", "quit"), "\(text(help))")
        try session.tmux.sendText("x")
        let closed = session.waitForDashboard(focused: "Beta ☕ ベータ", boxes: 3)
        #expect(!anyRow(closed, containsAll: "Keys"), "\(text(closed))")

        try session.tmux.sendKeys("Enter")
        let zoomed = session.tmux.waitFor(description: "one box filling the screen") { screen in
            let boxes = ScreenGrid(screen).boxes().boxes
            return boxes == [BoxFrame(x: 0, y: 0, width: 80, height: 23)] && statusBar(screen, rows: 24)?.contains("zoomed") == true
        }
        #expect(ScreenGrid(zoomed).boxes().problems.isEmpty, "\(text(zoomed))")
        #expect(anyRow(zoomed, containsAll: "┌ Beta ☕ ベータ"), "\(text(zoomed))")

        try session.tmux.sendKeys("Escape")
        let back = session.waitForDashboard(focused: "Beta ☕ ベータ", boxes: 3)
        #expect(statusBar(back, rows: 24)?.contains("zoomed") == false, "\(text(back))")

        // p pauses automatic reloads (said in the status bar); t changes the theme, boxes stay.
        try session.tmux.sendText("p")
        session.tmux.waitFor(description: "'paused' in the status bar") { screen in
            statusBar(screen, rows: 24)?.hasPrefix(" widgethost │ paused │ Beta") == true
        }
        try session.tmux.sendText("pt")
        session.waitForDashboard(focused: "Beta ☕ ベータ", boxes: 3)
        try session.quit()
    }

    @Test("resizing down to 1x1 and back: no crash, 'terminal too small' when small, the dashboard again")
    func resize() throws {
        let session = try DashboardSession(config: clocks(["Alpha", "Beta", "Gamma"]), size: (80, 24))
        session.waitForDashboard(focused: "Alpha", boxes: 3)

        // 15 columns cannot hold the whole notice: it says "too small".
        try session.tmux.resize(cols: 15, rows: 5)
        session.tmux.waitFor(description: "the 'too small' notice at 15x5") { screen in
            anyRow(screen, containsAll: "too small") && anyRow(screen, containsAll: "15x5") && !ScreenGrid(screen).hasBoxDrawing
        }
        for (cols, rows) in [(1, 1), (2, 1), (1, 3), (80, 6)] {
            try session.tmux.resize(cols: cols, rows: rows)
            #expect(try session.tmux.exitStatus == nil, "exited at \(cols)x\(rows)")
        }
        session.tmux.waitFor(description: "the notice at 80x6 (one row short)") { screen in
            anyRow(screen, containsAll: "terminal too small") && anyRow(screen, containsAll: "80x6, need 80x7")
        }
        // One column short of a unit: the three panels would stack, so it asks for their height too.
        try session.tmux.resize(cols: 19, rows: 24)
        session.tmux.waitFor(description: "the notice at 19x24 (one column short)") { screen in
            anyRow(screen, containsAll: "terminal too small") && anyRow(screen, containsAll: "19x24, need 20x16")
        }
        try session.tmux.resize(cols: 1, rows: 1)
        try session.tmux.resize(cols: 80, rows: 24)
        let screen = session.waitForDashboard(focused: "Alpha", boxes: 3)
        #expect(!anyRow(screen, containsAll: "too small"), "\(text(screen))")
        #expect(try session.tmux.exitStatus == nil)
        try session.quit()
    }

    @Test("a terminal too small for the panels' layout says what it needs, not a size it already has")
    func tooSmallForLayout() throws {
        // 30x10 is above the 20x7 minimum, but four panels do not fit in it.
        let session = try DashboardSession(config: wideTitles, size: (30, 10))
        // Wait for the whole notice: tmux can be read between the writes of one frame.
        let screen = session.tmux.waitFor(description: "the 'terminal too small' notice with its size") {
            anyRow($0, containsAll: "terminal too small") && $0.contains { neededSize($0) != nil }
        }
        let need = screen.compactMap(neededSize).first
        #expect(need != nil, "\(text(screen))")
        // The notice asks for what the panels need at this width, not a fixed minimum.
        if let need { #expect(need.cols > 30 || need.rows > 10, "notice asks for \(need) at 30x10\n\(text(screen))") }
        try session.quit()
    }

    @Test("q, Ctrl-C and SIGTERM exit 0 and give the terminal back")
    func exits() throws {
        for way in ["q", "C-c", "SIGTERM"] {
            let session = try DashboardSession(config: clocks(["Alpha", "Beta"]), size: (80, 24))
            session.waitForDashboard(focused: "Alpha", boxes: 2)
            #expect(try session.tmux.alternateScreenIsOn, "the dashboard should draw on the alternate screen")
            switch way {
            case "q": try session.tmux.sendText("q")
            case "C-c": try session.tmux.sendKeys("C-c")
            default: try session.tmux.kill(signal: SIGTERM)
            }
            #expect(session.tmux.waitForExit() == .exited(0), "\(way)")
            #expect(try !session.tmux.alternateScreenIsOn, "\(way) left the alternate screen on")
            let after = try session.tmux.capture()
            #expect(!ScreenGrid(after).hasBoxDrawing, "\(way): the dashboard is still on screen\n\(text(after))")
            // Nothing was printed while curses owned the screen; the log says how it ended.
            let log = try FileContents.text(at: session.home.path + "/state/widgethost.log")
            #expect(log.contains("exiting with status 0"), "\(way): log:\n\(log)")
        }
    }

    @Test("a bad config written while running is reported and the old panels stay; a good one replaces them")
    func fileChangesReload() throws {
        let session = try DashboardSession(config: clocks(["Alpha", "Beta"]), size: (120, 24))
        session.waitForDashboard(focused: "Alpha", boxes: 2)

        // Written in place (inotify: IN_CLOSE_WRITE).
        try session.home.write("config.json", #"{ "panels": [ { "kind": "clock", "titel": "Oops" } ] }"#)
        let bad = session.tmux.waitFor(description: "the reload notice naming the unknown key") { screen in
            statusBar(screen, rows: 24).map { $0.contains("config not reloaded") && $0.contains("titel") } == true
        }
        #expect(anyRow(bad, containsAll: "┌ Alpha") && anyRow(bad, containsAll: "┌ Beta"), "\(text(bad))")
        #expect(ScreenGrid(bad).boxes().boxes.count == 2, "\(text(bad))")

        // Saved the way editors do: a new file renamed over the old one (IN_MOVED_TO).
        try session.replaceConfig(clocks(["Delta", "Beta"]))
        let good = session.waitForDashboard(focused: "Delta", boxes: 2)
        #expect(statusBar(good, rows: 24)?.contains("config not reloaded") == false, "\(text(good))")

        try session.quit()
    }

    @Test("a sessions journal that is not a database is moved aside, the status bar says so, and the dashboard runs")
    func damagedJournal() throws {
        let session = try DashboardSession(config: clocks(["One"]), size: (100, 30),
                                           stateFiles: ["sessions.sqlite": String(repeating: "not a database ", count: 100)])
        let screen = session.tmux.waitFor(description: "the notice in the status bar") { screen in
            statusBar(screen, rows: 30)?.contains("sessions journal was damaged: moved aside") == true
        }
        #expect(ScreenGrid(screen).boxes().problems.isEmpty, "\(text(screen))")
        let names = try FileManager.default.contentsOfDirectory(atPath: session.home.path + "/state")
        #expect(names.contains { $0.hasPrefix("sessions.sqlite.corrupt-") }, "\(names)")
        try session.quit()
    }

    @Test("closing the terminal ends the dashboard")
    func hangUp() throws {
        let session = try DashboardSession(config: clocks(["Alpha"]), size: (80, 24))
        session.waitForDashboard(focused: "Alpha", boxes: 1)
        let pid = try session.tmux.pid
        try session.tmux.hangUp()
        // Its SIGHUP is not a "reload the config" from a user: the terminal is gone.
        #expect(waitUntilGone(pid, timeout: .seconds(10)), "widgethost (pid \(pid)) still runs after its terminal closed")
        if !processIsGone(pid) { kill(pid, SIGKILL) }
        let log = try FileContents.text(at: session.home.path + "/state/widgethost.log")
        #expect(log.contains("the terminal is gone") && log.contains("exiting with status 0"), "log:\n\(log)")
    }

    @Test("a stack shows one child at a time; [ and ] flip through it, the title says which of N")
    func stackFlips() throws {
        let config = """
        { "panels": [
            { "kind": "stack", "family": "medium", "title": "Asia",
              "panels": [ { "kind": "clock", "title": "Seoul 서울", "options": { "timeZone": "Asia/Seoul" } },
                          { "kind": "clock", "title": "Kolkata", "options": { "timeZone": "Asia/Kolkata" } },
                          { "kind": "clock", "title": "Tokyo", "options": { "timeZone": "Asia/Tokyo" } } ] },
            { "kind": "clock", "family": "small", "title": "UTC", "options": { "timeZone": "UTC" } }
        ] }
        """
        let session = try DashboardSession(config: config, size: (80, 24))
        // Clocks give no relevance: a tie, so the first child stays until flipped.
        let first = session.waitForDashboard(focused: "Asia 1/3", boxes: 2)
        #expect(anyRow(first, containsAll: "┌ Asia 1/3") && anyRow(first, containsAll: "│Seoul 서울"), "\(text(first))")
        #expect(!anyRow(first, containsAll: "Kolkata"), "one child at a time\n\(text(first))")
        try session.tmux.sendText("]")
        let second = session.waitForDashboard(focused: "Asia 2/3", boxes: 2)
        #expect(anyRow(second, containsAll: "┌ Asia 2/3") && anyRow(second, containsAll: "│Kolkata"), "\(text(second))")
        try session.tmux.sendText("[")
        try session.tmux.sendText("[")
        let wrapped = session.waitForDashboard(focused: "Asia 3/3", boxes: 2)
        #expect(anyRow(wrapped, containsAll: "│Tokyo"), "\(text(wrapped))")
        // On a panel that is not a stack the keys do nothing.
        try session.tmux.sendKeys("Tab")
        session.waitForDashboard(focused: "UTC", boxes: 2)
        try session.tmux.sendText("]")
        try session.tmux.sendKeys("BTab")
        let still = session.waitForDashboard(focused: "Asia 3/3", boxes: 2)
        #expect(ScreenGrid(still).boxes().problems.isEmpty, "\(text(still))")
        try session.tmux.sendText("?")
        let help = session.tmux.waitFor(description: "the help box listing [ ]") {
            anyRow($0, containsAll: "[ ]", "flip through the focused stack")
        }
        #expect(anyRow(help, containsAll: "┌ Keys"), "\(text(help))")
        try session.tmux.sendText("x")
        try session.quit()
    }

    @Test("a symlinked config is watched where it really lives; pointing the link elsewhere needs SIGHUP")
    func sighupReloads() throws {
        // The config path is a symlink into another directory. Editing the file it points to is
        // seen (the watch is on the real file's directory); pointing the link at another file
        // changes nothing the watch can see, so only SIGHUP brings that in.
        let session = try DashboardSession(config: clocks(["Alpha", "Beta"]), size: (80, 24), linked: true)
        session.waitForDashboard(focused: "Alpha", boxes: 2)
        try session.home.write("config.json", clocks(["Epsilon", "Beta", "Zeta"]))
        let edited = session.waitForDashboard(focused: "Epsilon", boxes: 3)
        #expect(anyRow(edited, containsAll: "┌ Zeta"), "\(text(edited))")

        let other = try session.home.write("other.json", clocks(["Omega", "Psi"]))
        guard unlink(session.configPath) == 0, symlink(other, session.configPath) == 0 else {
            throw HarnessError("cannot re-point \(session.configPath): \(String(cString: strerror(errno)))")
        }
        #expect(try anyRow(session.tmux.capture(), containsAll: "┌ Epsilon"))
        try session.tmux.kill(signal: SIGHUP)
        let reloaded = session.waitForDashboard(focused: "Omega", boxes: 2)
        #expect(anyRow(reloaded, containsAll: "┌ Psi"), "\(text(reloaded))")
        try session.quit()
    }
}

// MARK: - Session

/// One running dashboard: a private HOME (with the config and the state directory) and a tmux.
private final class DashboardSession {
    let home: ScratchDirectory
    let tmux = TmuxHarness()
    let configPath: String
    let size: (cols: Int, rows: Int)
    private let environment: [String: String]

    /// - Parameter linked: run with `HOME/linked/config.json`, a symlink to `HOME/config.json`.
    /// - Parameter stateFiles: files (name → text) put in the state directory before start.
    init(config: String, size: (cols: Int, rows: Int), term: String = "xterm-256color", linked: Bool = false,
         stateFiles: [String: String] = [:]) throws {
        home = try ScratchDirectory()
        self.size = size
        let file = try home.write("config.json", config)
        if !stateFiles.isEmpty { mkdir(home.path + "/state", 0o700) }
        for (name, text) in stateFiles { try home.write("state/" + name, text) }
        if linked {
            configPath = home.path + "/linked/config.json"
            guard mkdir(home.path + "/linked", 0o700) == 0, symlink(file, configPath) == 0 else {
                throw HarnessError("cannot link \(configPath): \(String(cString: strerror(errno)))")
            }
        } else {
            configPath = file
        }
        environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"])
        try tmux.start(command: [try BuiltProducts.executable("widgethost"),
                                 "--config", configPath, "--state-dir", home.path + "/state"],
                       size: size, environment: environment, term: term)
    }

    deinit {
        tmux.stop()
        home.remove()
    }

    /// Waits until the status bar is on the last row with `focused` as the title and the time,
    /// and `boxes` boxes are drawn without problems; returns that screen.
    @discardableResult
    func waitForDashboard(focused title: String, boxes count: Int,
                          sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        tmux.waitFor(description: "the dashboard with \(count) boxes, focus on \(title)", sourceLocation: sourceLocation) { screen in
            guard let bar = statusBar(screen, rows: size.rows), bar.hasPrefix(" widgethost │ \(title)"),
                  hasClock(bar) else { return false }
            let (boxes, problems) = ScreenGrid(screen).boxes()
            return boxes.count == count && problems.isEmpty
        }
    }

    /// The boxes of `widgethost snapshot` for the same config, size and environment.
    func snapshotBoxes() throws -> [BoxFrame] {
        let result = try Subprocess.run([try BuiltProducts.executable("widgethost"), "snapshot",
                                         "--config", configPath, "--size", "\(size.cols)x\(size.rows)"],
                                        environment: environment, timeout: TestTimeScale.scaled(.seconds(20)))
        #expect(result.status == 0, "snapshot failed: \(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let (boxes, problems) = ScreenGrid(lines).boxes()
        #expect(problems.isEmpty, "snapshot: \(problems)")
        return boxes
    }

    /// Writes a new config next to the old one and renames it over it, as editors save.
    func replaceConfig(_ text: String) throws {
        let temporary = try home.write(".config.json.tmp", text)
        guard rename(temporary, configPath) == 0 else {
            throw HarnessError("rename \(temporary): \(String(cString: strerror(errno)))")
        }
    }

    /// Quits with `q` and expects exit status 0.
    func quit(sourceLocation: SourceLocation = #_sourceLocation) throws {
        try tmux.sendText("q")
        #expect(tmux.waitForExit(sourceLocation: sourceLocation) == .exited(0), sourceLocation: sourceLocation)
    }
}

/// The status bar: the last row of a full screen, when it is the dashboard's.
private func statusBar(_ screen: [String], rows: Int) -> String? {
    guard screen.count == rows, let last = screen.last, last.hasPrefix(" widgethost"),
          last.hasSuffix("? help  q quit") else { return nil }
    return last
}

/// Whether the status bar shows a time (`HH:MM` right before "  ? help").
private func hasClock(_ bar: String) -> Bool {
    let suffix = "  ? help  q quit"
    guard bar.hasSuffix(suffix) else { return false }
    let time = Array(bar.dropLast(suffix.count).suffix(5))
    guard time.count == 5, time[2] == ":" else { return false }
    return [0, 1, 3, 4].allSatisfy { time[$0].isASCII && time[$0].isNumber }
}

/// Whether process `pid` has ended (no such process, or a zombie nobody reaps).
private func processIsGone(_ pid: pid_t) -> Bool {
    guard let file = fopen("/proc/\(pid)/stat", "r") else { return true }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 512)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { return true }
    let stat = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    // "PID (comm) STATE …": the state follows the last ')'.
    guard let close = stat.lastIndex(of: ")") else { return false }
    return stat[close...].dropFirst(2).first == "Z"
}

/// Polls every 50 ms until process `pid` has ended, up to `timeout` (scaled by `TestTimeScale`).
private func waitUntilGone(_ pid: pid_t, timeout: Duration) -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: TestTimeScale.scaled(timeout))
    while !processIsGone(pid) {
        if clock.now >= deadline { return false }
        usleep(50_000)
    }
    return true
}

/// The size in a "COLSxROWS, need WxH+" notice row.
private func neededSize(_ row: String) -> (cols: Int, rows: Int)? {
    guard let need = row.split(separator: "need ").dropFirst().first else { return nil }
    let numbers = need.prefix { $0.isNumber || $0 == "x" }.split(separator: "x").compactMap { Int($0) }
    return numbers.count == 2 ? (numbers[0], numbers[1]) : nil
}

