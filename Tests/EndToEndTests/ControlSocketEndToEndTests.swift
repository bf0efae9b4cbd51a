#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import Testing
import WidgetTestSupport

/// `widgethost reload` and the control socket, with the real binary in tmux.
@Suite("the control socket, end to end", .serialized, .onOwnThreads)
struct ControlSocketEndToEndTests {
    /// A dashboard with a command panel that appends a line to `runs` each time it runs (once an
    /// hour on its own), in a private home whose runtime directory is `home/run`.
    private struct Running {
        let home: ScratchDirectory
        let tmux = TmuxHarness()
        let environment: [String: String]
        let runs: String
        let state: String

        init(runtimeDirectory: Bool = true) throws {
            home = try ScratchDirectory()
            let runtime = home.path + "/run"
            mkdir(runtime, 0o700)
            runs = home.path + "/runs"
            state = home.path + "/state"
            environment = TmuxHarness.isolatedEnvironment(home: home.path, adding: runtimeDirectory ? ["XDG_RUNTIME_DIR": runtime] : [:])
            let config = try home.write("config.json", """
                { "panels": [
                    { "kind": "command", "family": "medium", "title": "Runs",
                      "options": { "command": "echo run >> \(runs); wc -l < \(runs)", "intervalSeconds": 3600 } },
                    { "kind": "clock", "family": "small" } ] }
                """)
            try tmux.start(command: [try BuiltProducts.executable("widgethost"), "--config", config, "--state-dir", state],
                           size: (80, 20), environment: environment)
            tmux.waitFor(description: "the first run") { anyRow($0, containsAll: "┌ Runs") && anyRow($0, containsAll: "1") }
        }

        func reload(_ arguments: [String], environment: [String: String]? = nil) throws -> Subprocess.Result {
            try Subprocess.run([try BuiltProducts.executable("widgethost"), "reload"] + arguments + ["--state-dir", state],
                               environment: environment ?? self.environment, timeout: TestTimeScale.scaled(.seconds(10)))
        }

        var runCount: Int { ((try? FileContents.text(at: runs)) ?? "").split(separator: "\n").count }

        func stop() {
            tmux.stop()
            home.remove()
        }
    }

    @Test("reload KIND runs the panel's provider at once; an unknown kind, no dashboard or no XDG_RUNTIME_DIR is a clear message")
    func reloadAKind() throws {
        let running = try Running()
        defer { running.stop() }
        #expect(running.runCount == 1)
        let asked = try running.reload(["command"])
        #expect(asked.status == 0, "\(asked.standardError)")
        _ = running.tmux.waitFor(timeout: .seconds(1), description: "the second run within 1 s") { _ in running.runCount == 2 }
        let unknown = try running.reload(["leaderbord"])
        #expect(unknown.status == 1)
        #expect(unknown.standardError == "widgethost reload: no panel of kind 'leaderbord' on this dashboard (its kinds: clock, command)\n")
        var bare = running.environment
        bare["XDG_RUNTIME_DIR"] = nil
        let noRuntime = try running.reload(["command"], environment: bare)
        #expect(noRuntime.status == 1 && noRuntime.standardError.contains("the dashboard running for \(running.state) has no control socket at \(running.state)/control.sock: it was started with another XDG_RUNTIME_DIR"),
                "without XDG_RUNTIME_DIR the socket would be in the state directory: \(noRuntime.standardError)")
        let usage = try running.reload([])
        #expect(usage.status == 2 && usage.standardError.contains("give KIND ... (as in the config) or --all"))
        try running.tmux.sendText("q")
        #expect(running.tmux.waitForExit() == .exited(0))
        let gone = try running.reload(["command"])
        #expect(gone.status == 1 && gone.standardError.contains("no dashboard is running for"), "the socket left with the dashboard")
    }

    @Test("without XDG_RUNTIME_DIR the socket is the state directory's control.sock")
    func inTheStateDirectory() throws {
        let running = try Running(runtimeDirectory: false)
        defer { running.stop() }
        let asked = try running.reload(["command"])
        #expect(asked.status == 0, "\(asked.standardError)")
        _ = running.tmux.waitFor(timeout: .seconds(1), description: "the second run within 1 s") { _ in running.runCount == 2 }
        try running.tmux.sendText("q")
        _ = running.tmux.waitForExit()
        #expect(access(running.state + "/control.sock", F_OK) != 0, "removed at exit")
    }

    @Test("a client that sends nothing, or a megabyte without a newline, is cut off; the loop answers the next at once")
    func hostileClients() throws {
        let running = try Running()
        defer { running.stop() }
        let socket = try #require(Self.list(running.home.path + "/run/widgethost").first { $0.hasSuffix(".sock") })
        let path = running.home.path + "/run/widgethost/" + socket
        let silent = try Self.connect(path)
        defer { close(silent) }
        let flood = try Self.connect(path)
        defer { close(flood) }
        let megabyte = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
        var sent = 0
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(flood, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        while sent < megabyte.count {
            let n = megabyte[sent...].withUnsafeBytes { send(flood, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }
            sent += n
        }
        #expect(sent < megabyte.count, "the dashboard stopped reading and closed the flood (sent \(sent))")
        let asked = try running.reload(["--all"])
        #expect(asked.status == 0, "\(asked.standardError)")
        _ = running.tmux.waitFor(timeout: .seconds(1), description: "a run after --all") { _ in running.runCount == 2 }
        // The silent client is cut off after its 2 s: its read ends.
        var byte: UInt8 = 0
        var wait = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(silent, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
        #expect(recv(silent, &byte, 1, 0) == 0, "closed by the dashboard")
    }

    @Test("a socket left by a host killed with SIGKILL is replaced at the next start; a second dashboard does not take it")
    func staleAndSecond() throws {
        let running = try Running()
        defer { running.stop() }
        let pid = try running.tmux.pid
        kill(pid, SIGKILL)
        _ = running.tmux.waitForExit()
        let sockets = Self.list(running.home.path + "/run/widgethost").filter { $0.hasSuffix(".sock") }
        #expect(sockets.count == 1, "the killed host left its socket")
        let stale = try running.reload(["command"])
        #expect(stale.status == 1 && stale.standardError.contains("no dashboard is running"))
        let again = TmuxHarness()
        defer { again.stop() }
        try again.start(command: [try BuiltProducts.executable("widgethost"), "--config", running.home.path + "/config.json",
                                  "--state-dir", running.state], size: (80, 20), environment: running.environment)
        again.waitFor(description: "the restarted dashboard") { anyRow($0, containsAll: "┌ Runs") }
        let count = running.runCount
        #expect(try running.reload(["command"]).status == 0, "the new host answers on the replaced socket")
        _ = again.waitFor(timeout: .seconds(1), description: "its run") { _ in running.runCount == count + 1 }
        // A second dashboard on the same state directory runs, but the socket stays the first's.
        let second = TmuxHarness()
        defer { second.stop() }
        try second.start(command: [try BuiltProducts.executable("widgethost"), "--config", running.home.path + "/config.json",
                                   "--state-dir", running.state], size: (80, 20), environment: running.environment)
        second.waitFor(description: "the second dashboard") { anyRow($0, containsAll: "┌ Runs") }
        try second.sendText("q")
        _ = second.waitForExit()
        #expect(try running.reload(["command"]).status == 0, "the first still answers after the second quit")
    }

    static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    static func connect(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HarnessError("socket: \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() where i < raw.count - 1 { raw[i] = byte }
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw HarnessError("connect \(path): \(errno)")
        }
        return fd
    }
}
