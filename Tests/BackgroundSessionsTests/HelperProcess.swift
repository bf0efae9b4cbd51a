import Glibc
import WidgetTestSupport

/// The session-crash-helper running in its own process group, its stdout read line by line.
final class HelperProcess {
    let pid: pid_t
    private let output: Int32
    private var buffer: [UInt8] = []
    private(set) var lines: [String] = []
    private var eof = false

    /// The helper built next to the test bundle (`.build/<triple>/debug/`).
    static var executablePath: String {
        var raw = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &raw, raw.count - 1)
        let exe = n > 0 ? String(decoding: raw[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
        var dir = exe
        // The runner is <debug>/WidgetHostPackageTests.xctest (a file on Linux).
        while let slash = dir.lastIndex(of: "/") {
            dir = String(dir[..<slash])
            if access(dir + "/session-crash-helper", X_OK) == 0 { return dir + "/session-crash-helper" }
        }
        return "session-crash-helper"
    }

    /// Spawns the helper with `arguments`, stdin from /dev/null, stdout to a pipe, stderr
    /// inherited, with no proxy variables in its environment.
    init(_ arguments: [String]) throws {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw FileError(errno: errno) }
        // Only the child's dup2'd copy of the write end must survive exec.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let child: pid_t
        do throws(ChildSpawn.Failure) {
            child = try ChildSpawn.start([Self.executablePath] + arguments, environment: ["PATH=/usr/bin:/bin", "HOME=/tmp"],
                                         standardOutput: .descriptor(fds[1]), standardError: .inherit)
        } catch {
            close(fds[0])
            close(fds[1])
            throw FileError(errno: error.code)
        }
        close(fds[1])
        pid = child
        output = fds[0]
    }

    deinit {
        kill(-pid, SIGKILL)
        _ = wait()
        close(output)
    }

    /// Reads until a line satisfying `predicate` arrives (returned) or `seconds` pass / EOF (nil).
    func readLine(within seconds: Double, until predicate: (String) -> Bool) -> String? {
        let deadline = ContinuousClock.now + .milliseconds(Int64(seconds * 1000))
        var checked = lines.count
        while true {
            for line in lines[checked...] where predicate(line) { return line }
            checked = lines.count
            if eof { return nil }
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return nil }
            var p = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
            let ms = Int32(left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000) + 1
            if poll(&p, 1, ms) <= 0 { continue }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(output, &chunk, chunk.count)
            if n <= 0 { eof = true; continue }
            buffer += chunk[0..<n]
            while let newline = buffer.firstIndex(of: 10) {
                lines.append(String(decoding: buffer[..<newline], as: UTF8.self))
                buffer.removeSubrange(...newline)
            }
        }
    }

    /// Reads everything until EOF (or `seconds`) and returns the exit status (nil on timeout).
    func finish(within seconds: Double) -> Int32? {
        _ = readLine(within: seconds) { _ in false }
        guard eof else { return nil }
        return wait()
    }

    /// SIGKILLs the helper's process group and reaps it.
    func killGroup() {
        kill(-pid, SIGKILL)
        _ = wait()
    }

    private var reaped: Int32?
    private func wait() -> Int32? {
        if let reaped { return reaped }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return nil }
        }
        let code = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        reaped = code
        return code
    }

    struct FileError: Error { var errno: Int32 }
}
