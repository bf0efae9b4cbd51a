#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#endif

/// Runs short-lived helper programs (`tmux` commands) synchronously for end-to-end tests.
///
/// Not `Foundation.Process` (DESIGN.md §5): that leaves the child in our process group and
/// misreports the status when SIGCHLD is ignored. Here `ChildSpawn` starts the child (`posix_spawnp`) in a
/// process group of its own, with stdin from /dev/null, default signal dispositions and an
/// empty signal mask; stdout and stderr go to unlinked temporary files (no pipe to drain, and
/// no hang if a daemon the child forks keeps a descriptor), and `waitpid` collects the real
/// status. A child that outlives `timeout` is killed and reported as an error.
public enum Subprocess {
    /// What a finished program left behind.
    public struct Result: Sendable {
        /// The exit status, or 128 + the signal number when a signal ended the program.
        public var status: Int32
        public var standardOutput: String
        public var standardError: String
    }

    /// A program that could not be run or did not finish in time.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs `arguments` (looked up in `PATH` when the first has no slash) to completion.
    ///
    /// - Parameters:
    ///   - environment: the child's whole environment; nil passes ours on.
    ///   - timeout: wall-clock limit before the child is killed with SIGKILL (already scaled:
    ///     callers pass `TestTimeScale.scaled(_:)`).
    public static func run(_ arguments: [String], environment: [String: String]? = nil,
                           timeout: Duration) throws(Failure) -> Result {
        precondition(!arguments.isEmpty, "no program to run")
        let output = try TemporaryOutput()
        defer { output.close() }
        let errors = try TemporaryOutput()
        defer { errors.close() }

        let environment = environment ?? ProcessInfo.processInfo.environment
        let pid: pid_t
        do throws(ChildSpawn.Failure) {
            pid = try ChildSpawn.start(arguments, environment: environment.map { "\($0.key)=\($0.value)" }.sorted(),
                                       standardOutput: .descriptor(output.fd), standardError: .descriptor(errors.fd),
                                       searchPath: true)
        } catch {
            throw Failure(description: "cannot run \(arguments[0]): \(error)")
        }

        let status = try wait(for: pid, timeout: timeout, command: arguments)
        return Result(status: status, standardOutput: output.contents(), standardError: errors.contents())
    }

    /// Polls `waitpid` with `WNOHANG` (there is no process source on Linux, and a blocking wait
    /// could hang a test forever), backing off from 1 ms to 20 ms between polls.
    private static func wait(for pid: pid_t, timeout: Duration, command: [String]) throws(Failure) -> Int32 {
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        var pause: UInt32 = 1_000
        while true {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return decode(status) }
            if reaped < 0 {
                if errno == EINTR { continue }
                // ECHILD here means SIGCHLD is ignored in this process: the status is lost.
                throw Failure(description: "waitpid(\(command[0])) failed: \(String(cString: strerror(errno))); is SIGCHLD ignored?")
            }
            if clock.now >= deadline {
                Glibc.kill(pid, SIGKILL)
                var ignored: Int32 = 0
                while waitpid(pid, &ignored, 0) < 0 && errno == EINTR {}
                throw Failure(description: "\(command.joined(separator: " ")) did not finish within \(timeout); killed")
            }
            usleep(pause)
            pause = min(pause * 2, 20_000)
        }
    }

    private static func decode(_ status: Int32) -> Int32 {
        // WIFEXITED/WEXITSTATUS are macros Swift cannot import.
        let signal = status & 0x7f
        return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
}

/// An unlinked temporary file a child writes one of its streams to.
private struct TemporaryOutput {
    let fd: Int32

    init() throws(Subprocess.Failure) {
        // O_CLOEXEC at creation: a child spawned concurrently by another test must not inherit it.
        while true {
            let path = "/tmp/widgethost-subprocess-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
            let fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if fd < 0 && errno == EEXIST { continue }
            guard fd >= 0 else {
                throw Subprocess.Failure(description: "cannot create \(path): \(String(cString: strerror(errno)))")
            }
            unlink(path)
            self.fd = fd
            return
        }
    }

    func contents() -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var offset: off_t = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += chunk[..<count]
            offset += off_t(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func close() { _ = Glibc.close(fd) }
}
