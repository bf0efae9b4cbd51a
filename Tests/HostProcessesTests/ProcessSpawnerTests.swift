#if canImport(Glibc)
import Glibc
#endif
import HostProcesses
import Synchronization
import Testing

private let environment = ["PATH": "/usr/bin:/bin", "LC_ALL": "C"]

/// Everything readable from `fd` until EOF (the child and whatever it forked closed it).
private func readToEnd(_ fd: Int32?) -> String {
    guard let fd else { return "" }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// Reaps until `process` has been collected, as the loop does on each SIGCHLD (here: polled,
/// since a test process cannot own SIGCHLD; 10 s at most).
private func reaped(_ process: SpawnedProcess, by spawner: ProcessSpawner) -> ProcessExit? {
    for _ in 0..<10_000 {
        spawner.reapExited()
        if let exit = process.exit { return exit }
        usleep(1_000)
    }
    return nil
}

@Suite("Process spawner", .serialized)
struct ProcessSpawnerTests {
    @Test("exit 7 is reported as status 7, once, through onExit")
    func exitStatus() throws {
        let spawner = ProcessSpawner()
        let exits = Mutex<[ProcessExit]>([])
        let child = try spawner.spawn(["/bin/sh", "-c", "echo out; echo err >&2; exit 7"], environment: environment) { exit in
            exits.withLock { $0.append(exit) }
        }
        #expect(readToEnd(child.standardOutput) == "out\n")
        #expect(readToEnd(child.standardError) == "err\n")
        #expect(reaped(child, by: spawner) == .exited(7))
        spawner.reapExited()
        #expect(exits.withLock { $0 } == [.exited(7)])
        #expect(spawner.runningCount == 0)
        child.closePipes()
    }

    @Test("a child killed by a signal is reported as signalled")
    func signalDeath() throws {
        let spawner = ProcessSpawner()
        let child = try spawner.spawn(["/bin/sh", "-c", "kill -SEGV $$"], environment: environment)
        #expect(reaped(child, by: spawner) == .signalled(SIGSEGV))
        #expect(child.exit?.shellStatus == 128 + SIGSEGV)
    }

    @Test("the child leads a process group of its own, and killing the group ends what it forked")
    func ownGroupKilled() throws {
        let spawner = ProcessSpawner()
        // The shell forks a sleeper, reports both pids and its group, then waits.
        let child = try spawner.spawn(["/bin/sh", "-c", "sleep 300 & echo $$ $! $(ps -o pgid= -p $$); wait"],
                                      environment: environment)
        var line = ""
        var byte: UInt8 = 0
        while read(child.standardOutput!, &byte, 1) == 1, byte != 10 { line.append(Character(UnicodeScalar(byte))) }
        let fields = line.split(separator: " ").compactMap { pid_t($0) }
        try #require(fields.count == 3, "got \(line)")
        #expect(fields[0] == child.pid)
        #expect(fields[2] == child.pid, "the child's group is its own pid")
        #expect(getpgid(child.pid) == child.pid && getpgid(child.pid) != getpgrp())
        let sleeper = fields[1]
        #expect(getpgid(sleeper) == child.pid, "the grandchild is in the group too")
        #expect(child.signalGroup(SIGKILL))
        #expect(reaped(child, by: spawner) == .signalled(SIGKILL))
        // The grandchild (reparented, not ours to reap) is gone or a zombie about to be.
        var gone = false
        for _ in 0..<5_000 {
            if kill(sleeper, 0) != 0 || processState(sleeper) == "Z" { gone = true; break }
            usleep(1_000)
        }
        #expect(gone, "the forked sleeper was killed with the group")
        #expect(readToEnd(child.standardOutput) == "", "every writer of the pipe is gone")
    }

    @Test("stdin is /dev/null: a child that reads gets EOF at once")
    func stdinIsDevNull() throws {
        let spawner = ProcessSpawner()
        let child = try spawner.spawn(["/bin/sh", "-c", "cat; readlink /proc/self/fd/0"], environment: environment)
        #expect(readToEnd(child.standardOutput) == "/dev/null\n")
        #expect(reaped(child, by: spawner) == .exited(0))
    }

    @Test("stdin can be a pipe the host writes")
    func stdinPipe() throws {
        let spawner = ProcessSpawner()
        let child = try spawner.spawn(["/bin/cat"], environment: environment, standardInput: .pipe)
        let message = Array("{\"jsonrpc\":\"2.0\"}\n".utf8)
        #expect(write(child.standardInput!, message, message.count) == message.count)
        child.closeStandardInput()  // not close(): the deinit would close the number again
        #expect(readToEnd(child.standardOutput) == "{\"jsonrpc\":\"2.0\"}\n")
        #expect(reaped(child, by: spawner) == .exited(0))
    }

    @Test("resource limits (RLIMIT_AS, RLIMIT_CPU) are applied to the program")
    func limitsApplied() throws {
        let spawner = ProcessSpawner()
        let limits = ProcessLimits(addressSpaceBytes: 512 << 20, cpuSeconds: 7)
        let child = try spawner.spawn(["/bin/cat", "/proc/self/limits"], environment: environment, limits: limits)
        let lines = readToEnd(child.standardOutput).split(separator: "\n")
        #expect(reaped(child, by: spawner) == .exited(0))
        let cpu = lines.first { $0.hasPrefix("Max cpu time") }.map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        let memory = lines.first { $0.hasPrefix("Max address space") }.map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(cpu.map { Array($0[3...4]) } == ["7", "7"])
        #expect(memory.map { Array($0[3...4]) } == ["\(512 << 20)", "\(512 << 20)"])
    }

    @Test("a CPU limit ends a spinning child with SIGXCPU or SIGKILL")
    func cpuLimitEnforced() throws {
        let spawner = ProcessSpawner()
        let child = try spawner.spawn(["/bin/sh", "-c", "while :; do :; done"], environment: environment,
                                      limits: ProcessLimits(cpuSeconds: 1))
        let exit = reaped(child, by: spawner)
        if exit == nil { child.signalGroup(SIGKILL) }
        #expect(exit == .signalled(SIGXCPU) || exit == .signalled(SIGKILL))
    }

    @Test("no descriptor of the host leaks into the child")
    func noDescriptorLeak() throws {
        // A descriptor without O_CLOEXEC, as a careless library might leave, above any the child
        // would open itself (F_DUPFD takes a free number: other suites' sockets run in this process).
        let opened = open("/dev/null", O_RDONLY)
        try #require(opened >= 0)
        let leaky = fcntl(opened, F_DUPFD, 200)
        close(opened)
        try #require(leaky >= 200)
        defer { close(leaky) }
        let spawner = ProcessSpawner()
        let child = try spawner.spawn(["/bin/ls", "/proc/self/fd"], environment: environment, standardInput: .pipe)
        let fds = Set(readToEnd(child.standardOutput).split(separator: "\n").compactMap { Int32($0) })
        #expect(reaped(child, by: spawner) == .exited(0))
        // 0, 1, 2 and the directory `ls` itself opened to list them.
        #expect(!fds.contains(leaky))
        #expect(fds.subtracting([0, 1, 2]).count <= 1, "child had \(fds.sorted())")
    }

    @Test("the environment is exactly the one given, and the working directory is set")
    func environmentAndDirectory() throws {
        let spawner = ProcessSpawner()
        let child = try spawner.spawn(["/usr/bin/env"], environment: ["ONLY": "this"], workingDirectory: "/proc")
        #expect(readToEnd(child.standardOutput) == "ONLY=this\n")
        #expect(reaped(child, by: spawner) == .exited(0))
        let pwd = try spawner.spawn(["/bin/pwd"], environment: environment, workingDirectory: "/proc")
        #expect(readToEnd(pwd.standardOutput) == "/proc\n")
        #expect(reaped(pwd, by: spawner) == .exited(0))
    }

    @Test("a program that does not exist fails to spawn and leaves no descriptor open")
    func missingProgram() throws {
        let spawner = ProcessSpawner()
        // Other suites open and close descriptors in this process meanwhile (a full run had 80
        // more at one moment): fail 250 times, and a leak (four pipe ends each) would show as
        // 1,000 more, far beyond their noise.
        let before = openDescriptorCount()
        for _ in 0..<250 {
            #expect(throws: ProcessSpawner.Failure.self) {
                _ = try spawner.spawn(["/nonexistent/program"], environment: environment)
            }
        }
        #expect(openDescriptorCount() < before + 250)
        #expect(spawner.runningCount == 0)
    }

    @Test("reaping takes only the spawner's own children")
    func reapsOnlyOwnChildren() throws {
        let spawner = ProcessSpawner()
        let other = ProcessSpawner()
        let mine = try spawner.spawn(["/bin/true"], environment: environment)
        let theirs = try other.spawn(["/bin/true"], environment: environment)
        #expect(reaped(mine, by: spawner) == .exited(0))
        #expect(theirs.exit == nil && other.runningCount == 1)
        #expect(reaped(theirs, by: other) == .exited(0))
    }
}

/// The state letter of /proc/PID/stat ("Z" for a zombie), or nil.
private func processState(_ pid: pid_t) -> String? {
    let fd = open("/proc/\(pid)/stat", O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    let text = readToEnd(fd)
    guard let close = text.lastIndex(of: ")") else { return nil }
    return text[text.index(after: close)...].split(separator: " ").first.map(String.init)
}

private func openDescriptorCount() -> Int {
    guard let dir = opendir("/proc/self/fd") else { return -1 }
    defer { closedir(dir) }
    var count = 0
    while readdir(dir) != nil { count += 1 }
    return count
}
