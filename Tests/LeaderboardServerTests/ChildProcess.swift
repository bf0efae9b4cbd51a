import Glibc
@testable import LeaderboardServer
import WidgetTestSupport

/// A program run with `ChildSpawn` in its own process group, stdin from /dev/null and its
/// stdout and stderr on pipes, for end-to-end tests of the built executables.
final class ChildProcess {
    enum Failure: Error { case spawn(Int32), timedOut(String) }

    let pid: pid_t
    private let stdoutFD: Int32
    private let stderrFD: Int32
    private var stdoutBytes: [UInt8] = []
    private var stderrBytes: [UInt8] = []
    private var status: Int32?

    /// Slow debug builds on a busy machine: every wait is multiplied by this.
    static let timeScale: Int = 1 + (getenv("TEST_TIME_SCALE").flatMap { Int(String(cString: $0)) } ?? 0)

    init(_ path: String, _ arguments: [String]) throws {
        var out: [Int32] = [-1, -1]
        var err: [Int32] = [-1, -1]
        guard pipe(&out) == 0, pipe(&err) == 0 else { throw Failure.spawn(errno) }
        // Only the child's dup2'd copies must survive exec (another test may spawn meanwhile).
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        let child: pid_t
        do throws(ChildSpawn.Failure) {
            child = try ChildSpawn.start([path] + arguments, environment: ["PATH=/usr/bin:/bin"],
                                         standardOutput: .descriptor(out[1]), standardError: .descriptor(err[1]))
        } catch {
            (out + err).forEach { close($0) }
            throw Failure.spawn(error.code)
        }
        close(out[1])
        close(err[1])
        pid = child
        stdoutFD = out[0]
        stderrFD = err[0]
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            var s: Int32 = 0
            waitpid(pid, &s, 0)
        }
        close(stdoutFD)
        close(stderrFD)
    }

    var standardError: String { String(decoding: stderrBytes, as: UTF8.self) }
    var standardOutput: String { String(decoding: stdoutBytes, as: UTF8.self) }

    /// Waits for the first line on stdout (without its newline).
    func firstLine(within seconds: Int) throws -> String {
        let deadline = ContinuousClock.now + .seconds(seconds * Self.timeScale)
        while true {
            if let newline = stdoutBytes.firstIndex(of: 10) {
                return String(decoding: stdoutBytes[..<newline], as: UTF8.self)
            }
            guard try pump(until: deadline) else {
                throw Failure.timedOut("no line on stdout; stderr: \(standardError)")
            }
        }
    }

    func signal(_ number: Int32) { kill(pid, number) }

    /// Waits for the program to close its output and exit; its exit code (128 + N if killed by
    /// signal N). Kills it if it takes longer than `seconds`.
    func exitCode(within seconds: Int) throws -> Int32 {
        let deadline = ContinuousClock.now + .seconds(seconds * Self.timeScale)
        while try pump(until: deadline) {}
        var s: Int32 = 0
        if ContinuousClock.now >= deadline { kill(pid, SIGKILL) }
        while waitpid(pid, &s, 0) < 0 && errno == EINTR {}
        status = s
        if ContinuousClock.now >= deadline { throw Failure.timedOut("did not exit; stderr: \(standardError)") }
        return s & 0x7f == 0 ? (s >> 8) & 0xff : 128 + (s & 0x7f)
    }

    /// Reads whatever either pipe has; false once both are closed or the deadline passed.
    private func pump(until deadline: ContinuousClock.Instant) throws -> Bool {
        var fds = [pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: stderrFD, events: Int16(POLLIN), revents: 0)]
        var open = [true, true]
        while ContinuousClock.now < deadline {
            for i in 0..<2 where !open[i] { fds[i].fd = -1 }
            if fds.allSatisfy({ $0.fd < 0 }) { return false }
            let r = poll(&fds, 2, milliseconds(until: deadline))
            if r < 0 && errno == EINTR { continue }
            if r <= 0 { continue }
            var progressed = false
            for i in 0..<2 where fds[i].fd >= 0 && fds[i].revents != 0 {
                var chunk = [UInt8](repeating: 0, count: 4096)
                let n = chunk.withUnsafeMutableBytes { read(fds[i].fd, $0.baseAddress, $0.count) }
                if n > 0 {
                    if i == 0 { stdoutBytes += chunk[0..<n] } else { stderrBytes += chunk[0..<n] }
                    progressed = true
                } else if !(n < 0 && errno == EINTR) {
                    open[i] = false
                }
            }
            if progressed { return true }
        }
        return false
    }
}
