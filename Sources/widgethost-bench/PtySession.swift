import CPty
#if canImport(Glibc)
import Glibc
#endif

/// The real `widgethost` on a pseudo-terminal this process opens (forkpty): everything the
/// program writes to its terminal is read here from the master side and counted.
final class PtySession {
    let pid: pid_t
    let master: Int32
    let started: UInt64
    /// Every byte read so far.
    private(set) var output: [UInt8] = []
    private var stopped = false

    init?(executable: String, arguments: [String], environment: [String], columns: Int = 100, rows: Int = 30) {
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var fd: Int32 = -1
        started = monotonicNanos()
        let child = wh_forkpty_exec(&fd, executable, argv, envp, UInt16(columns), UInt16(rows))
        guard child > 0 else { return nil }
        pid = child
        master = fd
    }

    deinit { close(master) }

    /// Reads what arrives within `timeoutMs`; returns the number of bytes (0 on timeout or end).
    @discardableResult
    func read(timeoutMs: Int) -> Int {
        var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(timeoutMs)) > 0 else { return 0 }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = chunk.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
        guard n > 0 else { return 0 }
        output.append(contentsOf: chunk[0..<n])
        return n
    }

    /// Reads until `needle` appears after byte `from`; the monotonic time it appeared, or nil.
    func readUntil(_ needle: String, from: Int = 0, timeoutMs: Int) -> UInt64? {
        let bytes = Array(needle.utf8)
        let deadline = monotonicNanos() + UInt64(timeoutMs) * 1_000_000
        var searched = from
        while true {
            if let _ = find(bytes, from: searched) { return monotonicNanos() }
            searched = max(from, output.count - bytes.count)
            let now = monotonicNanos()
            guard now < deadline else { return nil }
            read(timeoutMs: Int((deadline - now) / 1_000_000) + 1)
        }
    }

    /// Reads until nothing arrives for `quietMs` (or `maxMs` passed); returns the bytes read
    /// and the monotonic time the last of them arrived (nil when none did).
    func readUntilQuiet(quietMs: Int, maxMs: Int) -> (bytes: Int, last: UInt64?) {
        let deadline = monotonicNanos() + UInt64(maxMs) * 1_000_000
        var total = 0
        var last: UInt64?
        while monotonicNanos() < deadline {
            let n = read(timeoutMs: quietMs)
            if n == 0 { break }
            total += n
            last = monotonicNanos()
        }
        return (total, last)
    }

    private func find(_ needle: [UInt8], from: Int) -> Int? {
        guard output.count >= needle.count, from <= output.count - needle.count else { return nil }
        var i = from
        while i <= output.count - needle.count {
            if output[i] == needle[0] && Array(output[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }

    func send(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Sums over all threads of the process: voluntary context switches and CPU ticks.
    func wakeups() -> (voluntary: Int, cpuTicks: Int, threads: Int) { Self.wakeups(of: pid) }

    /// `wakeups()` of any process.
    static func wakeups(of pid: pid_t) -> (voluntary: Int, cpuTicks: Int, threads: Int) {
        var voluntary = 0, ticks = 0, threads = 0
        for task in ProcFiles.list("/proc/\(pid)/task") {
            guard let status = ProcFiles.read("/proc/\(pid)/task/\(task)/status") else { continue }
            threads += 1
            voluntary += ProcFiles.field(status, "voluntary_ctxt_switches") ?? 0
            if let stat = ProcFiles.read("/proc/\(pid)/task/\(task)/stat"), let close = stat.lastIndex(of: ")") {
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                // After the command: state is field 3; utime and stime are fields 14 and 15.
                if fields.count > 12 { ticks += (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0) }
            }
        }
        return (voluntary, ticks, threads)
    }

    /// A field of /proc/PID/status in kB (VmHWM, VmRSS).
    func statusField(_ name: String) -> Int? {
        ProcFiles.read("/proc/\(pid)/status").flatMap { ProcFiles.field($0, name) }
    }

    /// Asks the program to quit (`q`), then SIGTERM, then SIGKILL; reaps it.
    /// Ends the dashboard (`q`, then SIGTERM, then SIGKILL) and reaps it; once.
    func stop() {
        guard !stopped else { return }
        stopped = true
        send("q")
        for attempt in 0..<60 {
            var status: Int32 = 0
            read(timeoutMs: 0)
            if waitpid(pid, &status, WNOHANG) == pid { return }
            if attempt == 30 { kill(pid, SIGTERM) }
            sleepMilliseconds(50)
        }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
}

enum ProcFiles {
    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func list(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// `Name:   123 kB` → 123.
    static func field(_ text: String, _ name: String) -> Int? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }
}
