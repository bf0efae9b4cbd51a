#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetTestSupport

/// The `command` and `text` widgets in the real `widgethost`, in tmux, as a user sees them:
/// commands that hang, flood, print escapes and fail; a text file saved by rename.
@Suite("command and text widgets, end to end", .serialized, .onOwnThreads)
struct CommandTextEndToEndTests {
    @Test("a hanging command is killed at its timeout; exit 3, escapes and 50 MB of output are shown bounded and inert")
    func commands() throws {
        let config = """
            { "panels": [
              { "kind": "command", "family": "medium", "title": "hangs",
                "options": { "command": "echo started; sleep 300", "timeoutSeconds": 2, "intervalSeconds": 0 } },
              { "kind": "command", "family": "medium", "title": "three",
                "options": { "command": "echo three; exit 3", "intervalSeconds": 0 } },
              { "kind": "command", "family": "medium", "title": "escapes",
                "options": { "argv": ["printf", "\\\\033[2J\\\\033]0;owned\\\\007\\\\033[31mred\\\\033[0m ok\\\\n"], "intervalSeconds": 0 } },
              { "kind": "command", "family": "medium", "title": "flood",
                "options": { "command": "i=0; while [ $i -lt 50 ]; do head -c 1000000 /dev/zero | tr '\\\\0' x; i=$((i+1)); done; echo; echo flood-done",
                             "timeoutSeconds": 30, "intervalSeconds": 0 } }
            ] }
            """
        let host = try Host(config: config)
        let screen = host.tmux.waitFor(timeout: .seconds(30), description: "all four commands finished") { screen in
            anyRow(screen, containsAll: "timed out after 2s") && anyRow(screen, containsAll: "exit 3 · ran <1m ago")
                && anyRow(screen, containsAll: "red ok") && anyRow(screen, containsAll: "flood-done")
        }
        if try host.tmux.exitStatus != nil {
            Issue.record("widgethost ended: \(text(try host.tmux.capture(history: true)))")
            return
        }
        #expect(anyRow(screen, containsAll: "started"), "\(text(screen))")
        #expect(anyRow(screen, containsAll: "three"), "\(text(screen))")
        // The escapes are shown as pictures; the screen was not cleared and the boxes are whole.
        #expect(anyRow(screen, containsAll: "␛[2J␛]0;owned␇red ok"), "\(text(screen))")
        #expect(ScreenGrid(screen).boxes().problems.isEmpty, "\(text(screen))")
        #expect(ScreenGrid(screen).boxes().boxes.count == 4, "\(text(screen))")
        #expect(try host.tmux.exitStatus == nil, "the host is alive")
        let pid = try host.tmux.pid
        // Nothing of ours is left: no zombie, no sleeping command.
        #expect(children(of: pid).isEmpty, "children of widgethost: \(children(of: pid))")
        let peak = try #require(residentPeakKiB(pid))
        #expect(peak < 40 * 1024, "peak RSS \(peak) KiB")
        try host.quit()
    }

    @Test("four commands sleeping 30 s leave no provider thread blocked: a clock and a text panel show and tick meanwhile")
    func sleepingCommandsFreezeNothing() throws {
        // The commands come first, so they are asked first: on a host whose command runs each
        // held one of the 4 provider threads, the clock and the text would wait for them.
        let sleeper = #"{ "kind": "command", "family": "small", "title": "sleeps", "options": { "command": "echo sleeping; sleep 30", "timeoutSeconds": 30, "intervalSeconds": 0 } }"#
        let host = try Host(config: """
            { "panels": [ \(sleeper), \(sleeper), \(sleeper), \(sleeper),
              { "kind": "clock", "family": "small", "title": "clock", "options": { "seconds": true, "timeZone": "UTC" } },
              { "kind": "text", "family": "small", "title": "notes", "options": { "file": "~/notes/today.txt" } } ] }
            """, files: ["notes/today.txt": "first note"])
        let first = host.tmux.waitFor(timeout: .seconds(10), description: "the clock's time and the text") { screen in
            clockTime(screen) != nil && anyRow(screen, containsAll: "first note")
        }
        let shown = try #require(clockTime(first), "\(text(first))")
        let ticked = host.tmux.waitFor(timeout: .seconds(10), description: "the clock ticking on") { screen in
            clockTime(screen).map { $0 != shown } ?? false
        }
        #expect(clockTime(ticked) != shown, "\(text(ticked))")
        _ = try host.home.write("notes/today.txt", "second note")
        let edited = host.tmux.waitFor(timeout: .seconds(10), description: "the text's new content") { screen in
            anyRow(screen, containsAll: "second note")
        }
        #expect(anyRow(edited, containsAll: "second note"), "\(text(edited))")
        // The four commands are still sleeping, each in its own process group.
        let pid = try host.tmux.pid
        #expect(children(of: pid).filter { $0.hasSuffix(" sh") || $0.hasSuffix(" sleep") }.count == 4,
                "children of widgethost: \(children(of: pid))")
        try host.quit()
    }

    @Test("what a command leaves running in the background when it ends is killed (the host is its reaper)")
    func backgroundChildKilled() throws {
        let host = try Host(config: """
            { "panels": [ { "kind": "command", "family": "medium", "title": "leaves",
                            "options": { "command": "sleep 300 </dev/null >/dev/null 2>&1 & echo \\"left $!\\"", "intervalSeconds": 0 } } ] }
            """)
        let screen = host.tmux.waitFor(description: "the command's output") { anyRow($0, containsAll: "left ") }
        let row = try #require(screen.first { $0.contains("left ") })
        let pid = try #require(pid_t(row.split(separator: "left ").last?.prefix { $0.isNumber } ?? ""), "\(row)")
        defer { if isSleep(pid) { kill(pid, SIGKILL) } }
        let deadline = ContinuousClock.now + .seconds(5)
        while isSleep(pid) && ContinuousClock.now < deadline { usleep(20_000) }
        #expect(!isSleep(pid), "the background sleep \(pid) still runs")
        try host.quit()
    }

    @Test("r runs a command with intervalSeconds 0 again")
    func reloadRunsNow() throws {
        let host = try Host(config: """
            { "panels": [ { "kind": "command", "family": "medium", "title": "counter",
                            "options": { "command": "echo run >> runs; echo \\"runs: $(wc -l < runs)\\"", "intervalSeconds": 0 } } ] }
            """)
        host.tmux.waitFor(description: "the first run") { anyRow($0, containsAll: "runs: 1") }
        try host.tmux.sendText("r")
        let second = host.tmux.waitFor(description: "the second run") { anyRow($0, containsAll: "runs: 2") }
        #expect(anyRow(second, containsAll: "runs: 2"), "\(text(second))")
        try host.quit()
    }

    @Test("a text file replaced by rename shows the new content; a missing file says so and appears")
    func textFileRenamed() throws {
        let host = try Host(config: """
            { "panels": [ { "kind": "text", "family": "medium", "title": "notes", "options": { "file": "~/notes/today.txt" } },
                          { "kind": "text", "family": "medium", "title": "later", "options": { "file": "~/notes/later.txt" } } ] }
            """, files: ["notes/today.txt": "first version 東京"])
        host.tmux.waitFor(description: "the file and the missing one") { screen in
            anyRow(screen, containsAll: "first version 東京") && anyRow(screen, containsAll: "no file at")
        }
        _ = try host.home.write("notes/.today.txt.swp", "second version 🐳")
        guard rename(host.home.path + "/notes/.today.txt.swp", host.home.path + "/notes/today.txt") == 0 else {
            Issue.record("rename failed: \(errno)")
            return
        }
        _ = try host.home.write("notes/later.txt", "here now")
        let screen = host.tmux.waitFor(description: "the new content") { screen in
            anyRow(screen, containsAll: "second version 🐳") && anyRow(screen, containsAll: "here now")
        }
        #expect(!anyRow(screen, containsAll: "first version"), "\(text(screen))")
        #expect(ScreenGrid(screen).boxes().problems.isEmpty, "\(text(screen))")
        try host.quit()
    }
}

/// `widgethost --config HOME/config.json` in tmux at 100x30, HOME its own scratch directory
/// (also the working directory of the commands it runs).
private final class Host {
    let home: ScratchDirectory
    let tmux = TmuxHarness()

    init(config: String, files: [String: String] = [:]) throws {
        home = try ScratchDirectory()
        let path = try home.write("config.json", config)
        for (name, text) in files {
            if let slash = name.lastIndex(of: "/") { mkdir(home.path + "/" + name[..<slash], 0o700) }
            _ = try home.write(name, text)
        }
        mkdir(home.path + "/notes", 0o700)
        let environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: ["TZ": "UTC"])
        try tmux.start(command: ["/bin/sh", "-c", "cd \"$HOME\" && exec \"$0\" \"$@\"", try BuiltProducts.executable("widgethost"),
                                 "--config", path, "--state-dir", home.path + "/state"],
                       size: (100, 30), environment: environment)
    }

    deinit {
        tmux.stop()
        home.remove()
    }

    func quit() throws {
        try tmux.sendText("q")
        #expect(tmux.waitForExit() == .exited(0))
    }
}

/// The processes whose parent is `pid` (zombies included), as "PID STATE COMMAND".
private func children(of pid: pid_t) -> [String] {
    guard let directory = opendir("/proc") else { return [] }
    defer { closedir(directory) }
    var found: [String] = []
    while let item = readdir(directory) {
        let name = withUnsafeBytes(of: item.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        guard let child = pid_t(name), let stat = readSmall("/proc/\(child)/stat"),
              let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        if fields.count > 2, pid_t(fields[1]) == pid {
            found.append("\(child) \(fields[0]) \(stat[stat.index(after: open)..<close])")
        }
    }
    return found
}

/// Whether `pid` is a live `sleep` (not a zombie, not a process that took its pid since).
private func isSleep(_ pid: pid_t) -> Bool {
    guard let stat = readSmall("/proc/\(pid)/stat"), let close = stat.lastIndex(of: ")") else { return false }
    return stat.contains("(sleep)") && stat[stat.index(after: close)...].dropFirst().first != "Z"
}

/// The first `HH:MM:SS` on the screen (the clock's time with seconds), or the clock's big
/// face when its panel has room for one; nil without either.
private func clockTime(_ screen: [String]) -> String? {
    textClockTime(screen) ?? PanelBlankAreas.bigClockFace(ScreenGrid(screen).rows)
}

/// The first `HH:MM:SS` on the screen, or nil.
private func textClockTime(_ screen: [String]) -> String? {
    for row in screen {
        let scalars = Array(row.unicodeScalars)
        guard scalars.count >= 8 else { continue }
        for start in 0...(scalars.count - 8) {
            let piece = scalars[start..<start + 8]
            let pattern = piece.enumerated().allSatisfy { index, scalar in
                index == 2 || index == 5 ? scalar == ":" : ("0"..."9").contains(scalar)
            }
            if pattern { return String(String.UnicodeScalarView(piece)) }
        }
    }
    return nil
}

/// The peak resident set (VmHWM) of `pid`, in KiB.
private func residentPeakKiB(_ pid: pid_t) -> Int? {
    guard let status = readSmall("/proc/\(pid)/status") else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
    }
    return nil
}

private func readSmall(_ path: String) -> String? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var buffer = [UInt8](repeating: 0, count: 8192)
    let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : nil
}
