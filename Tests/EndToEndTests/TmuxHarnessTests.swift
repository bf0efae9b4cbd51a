#if canImport(Glibc)
import Glibc
#endif
import Testing
import WidgetTestSupport

/// The harness itself, driven with small system programs (env, sh, stty, cat) so a failure
/// here points at the harness, not at widgethost.
@Suite("tmux harness", .serialized, .onOwnThreads)
struct TmuxHarnessTests {
    @Test("the program sees exactly the environment given, with TERM as given")
    func exactEnvironment() throws {
        let (exit, screen) = try TmuxHarness.runToExit(
            command: ["/usr/bin/env"], size: (cols: 80, rows: 10),
            environment: ["LANG": "C.UTF-8", "WIDGETHOST_PROBE": "a b", "TERM": "replaced"], term: "nonexistent-term")
        #expect(exit == .exited(0))
        let shown = screen.filter { !$0.isEmpty }
        #expect(shown.sorted() == ["LANG=C.UTF-8", "TERM=nonexistent-term", "WIDGETHOST_PROBE=a b"])
    }

    @Test("the terminal has the size asked for, follows resize, and receives typed text and keys")
    func sizeResizeAndInput() throws {
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        let script = #"stty size; read line; echo "got:$line"; stty size; read line"#
        try tmux.start(command: ["/bin/sh", "-c", script], size: (cols: 100, rows: 30),
                       environment: ["PATH": "/usr/bin:/bin"])
        tmux.waitFor(description: "stty reports 30 rows, 100 columns") { $0.first == "30 100" }

        try tmux.resize(cols: 60, rows: 20)
        #expect(try tmux.size() == (cols: 60, rows: 20))
        try tmux.sendText("hello Enter")
        try tmux.sendKeys("Enter")
        tmux.waitFor(description: "the line read back, then the new size") { screen in
            screen.contains("got:hello Enter") && screen.contains("20 60")
        }

        try tmux.sendKeys("C-c")
        #expect(tmux.waitForExit() == .signalled(SIGINT))
    }

    @Test("exit status is reported and the last screen stays as the program left it")
    func exitStatus() throws {
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: ["/bin/sh", "-c", #"printf 'first\nlast'; exit 7"#], size: (cols: 40, rows: 2),
                       environment: [:])
        #expect(tmux.waitForExit() == .exited(7))
        #expect(try tmux.paneIsDead)
        // tmux may mark the pane dead before it has parsed the last bytes of output (seen on a
        // loaded machine): the screen must come to be, and stay, what the program left.
        _ = tmux.waitFor(timeout: .seconds(2), description: "the program's last screen") { $0 == ["first", "last"] }
        #expect(try tmux.capture() == ["first", "last"])
    }

    @Test("pid is the program's own process (env execs it) and kill(signal:) reaches it")
    func pidAndKill() throws {
        let tmux = TmuxHarness()
        defer { tmux.stop() }
        try tmux.start(command: ["/bin/cat"], environment: [:])
        let pid = try tmux.pid
        #expect(try processName(pid) == "cat")
        #expect(try tmux.exitStatus == nil)
        #expect(try !tmux.paneIsDead)
        try tmux.kill(signal: SIGTERM)
        #expect(tmux.waitForExit() == .signalled(SIGTERM))
    }

    @Test("stop() and deinit leave no server and no socket behind")
    func cleanup() throws {
        let stoppedName: String
        let stoppedSocket: String?
        do {
            let tmux = TmuxHarness()
            try tmux.start(command: ["/bin/cat"], environment: [:])
            stoppedName = tmux.socketName
            stoppedSocket = tmux.socketPath
            #expect(TmuxHarness.serverResponds(socketName: stoppedName))
            tmux.stop()
            tmux.stop()
        }
        #expect(!TmuxHarness.serverResponds(socketName: stoppedName))
        #expect(stoppedSocket != nil)
        if let stoppedSocket { #expect(access(stoppedSocket, F_OK) != 0, "socket \(stoppedSocket) left behind") }

        // A harness that is only dropped (as when a test throws before its own stop()).
        let (droppedName, droppedSocket) = try startAndDrop()
        #expect(!TmuxHarness.serverResponds(socketName: droppedName))
        #expect(access(droppedSocket, F_OK) != 0, "socket \(droppedSocket) left behind")
    }
}

private func startAndDrop() throws -> (name: String, socket: String) {
    let tmux = TmuxHarness()
    try tmux.start(command: ["/bin/cat"], environment: [:])
    #expect(TmuxHarness.serverResponds(socketName: tmux.socketName))
    return (tmux.socketName, try #require(tmux.socketPath))
}

/// The command name of process `pid` (`/proc/PID/comm`).
private func processName(_ pid: pid_t) throws -> String {
    guard let file = fopen("/proc/\(pid)/comm", "r") else { throw HarnessError("no process \(pid)") }
    defer { fclose(file) }
    var buffer = [CChar](repeating: 0, count: 64)
    guard fgets(&buffer, Int32(buffer.count), file) != nil else { throw HarnessError("cannot read /proc/\(pid)/comm") }
    let bytes = buffer.prefix { $0 != 0 && $0 != 10 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
