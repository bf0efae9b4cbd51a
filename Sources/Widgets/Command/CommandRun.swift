#if canImport(Glibc)
import Glibc
#endif
import HostProcesses
import Synchronization

/// How one run of a command ended, and what it wrote.
struct CommandRun: Sendable, Equatable {
    enum Outcome: Sendable, Equatable, Codable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it (not ours).
        case signalled(Int32)
        /// Still running at the timeout: its process group was killed.
        case timedOut(seconds: Int)
        /// It could not be started (a missing program or working directory).
        case failedToStart(String)
        /// The host cancelled the call (its own request timeout); the group was killed.
        case cancelled
    }

    var outcome: Outcome
    var output: CapturedOutput
}

/// Runs one command to its end or its timeout, on a thread of its own, without the loop's help.
///
/// - The run's blocking work happens on a `CommandThread` of its own, which the provider call
///   awaits: a provider thread is never held while a command runs, so commands that sleep
///   for minutes (four of them: as many as the dashboard's provider threads) freeze no other
///   panel.
/// - The child is the leader of a process group of its own (`ProcessSpawner`), stdin
///   /dev/null; at the timeout (or on cancellation) the whole group gets SIGKILL. Our
///   process is never in that group.
/// - stdout and stderr are read as they come (`poll` on both, with the time left as its
///   timeout, so a quiet command costs no wake-ups) until both reach EOF or the deadline;
///   `CapturedOutput` keeps at most its limit and drops the rest, so the child never blocks on
///   a full pipe and memory stays bounded whatever it prints.
/// - Reaping: the dashboard's loop reaps on SIGCHLD, but headless runs, previews and tests
///   have no loop, so the run waits for the child's exit on its pidfd
///   (`ProcessSpawner.exitDescriptor`, readable once it has ended: no polling) and then calls
///   `ProcessSpawner.reapExited()` itself (thread-safe; it waits only for the spawner's own
///   children), whoever reaped it first. A child that closed its output but kept running is
///   killed at the deadline. No zombie is left.
struct CommandRunner: Sendable {
    let spawner: ProcessSpawner

    /// The child of a run in progress, for the cancellation handler.
    final class RunState: Sendable {
        let state = Mutex<(process: SpawnedProcess?, cancelled: Bool)>((nil, false))
    }

    /// Runs `arguments` (a path first) with `environment` (the whole environment).
    func run(_ arguments: [String], environment: [String: String], workingDirectory: String?,
             timeoutSeconds: Int, output: CapturedOutput) async -> CommandRun {
        let shared = RunState()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CommandRun, Never>) in
                let started = CommandThread.start {
                    continuation.resume(returning: runBlocking(arguments, environment: environment, workingDirectory: workingDirectory,
                                                               timeoutSeconds: timeoutSeconds, output: output, shared: shared))
                }
                if !started {
                    continuation.resume(returning: CommandRun(outcome: .failedToStart("no thread to run it on"), output: output))
                }
            }
        } onCancel: {
            let process = shared.state.withLock { state -> SpawnedProcess? in
                state.cancelled = true
                return state.process
            }
            process?.signalGroup(SIGKILL)
        }
    }

    private func runBlocking(_ arguments: [String], environment: [String: String], workingDirectory: String?,
                             timeoutSeconds: Int, output initial: CapturedOutput,
                             shared: RunState) -> CommandRun {
        var output = initial
        let process: SpawnedProcess
        do {
            process = try spawner.spawn(arguments, environment: environment, workingDirectory: workingDirectory)
        } catch {
            return CommandRun(outcome: .failedToStart(error.description), output: output)
        }
        defer { process.closePipes() }
        let cancelledBeforeStart = shared.state.withLock { state -> Bool in
            state.process = process
            return state.cancelled
        }
        if cancelledBeforeStart { process.signalGroup(SIGKILL) }

        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(max(0, timeoutSeconds))
        var killed = cancelledBeforeStart
        var timedOut = false
        var open = [process.standardOutput, process.standardError].compactMap { $0 }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while !open.isEmpty {
            let left = deadline - clock.now
            guard left > .zero else { timedOut = true; break }
            var fds = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let ready = poll(&fds, nfds_t(fds.count), Self.milliseconds(left))
            if ready < 0 {
                if errno == EINTR { continue }
                timedOut = true
                break
            }
            for pfd in fds where pfd.revents != 0 {
                let count = chunk.withUnsafeMutableBytes { read(pfd.fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    chunk.withUnsafeBytes { output.append(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
                } else if count == 0 || (errno != EINTR && errno != EAGAIN) {
                    open.removeAll { $0 == pfd.fd }
                }
            }
        }
        if timedOut {
            process.signalGroup(SIGKILL)
            killed = true
        }
        let exitDescriptor = spawner.exitDescriptor(for: process)
        defer { if let exitDescriptor { close(exitDescriptor) } }
        var pause: UInt32 = 1_000
        while process.exit == nil {
            spawner.reapExited()
            if process.exit != nil { break }
            if !killed, clock.now >= deadline {
                process.signalGroup(SIGKILL)
                killed = true
                timedOut = true
            }
            if let exitDescriptor {
                // Until it ends (or the deadline); once killed, a second at a time until it dies.
                var pfd = pollfd(fd: exitDescriptor, events: Int16(POLLIN), revents: 0)
                _ = poll(&pfd, 1, killed ? 1000 : Self.milliseconds(deadline - clock.now))
            } else {
                // No pidfd (a kernel before 5.3): a short backoff instead.
                usleep(pause)
                pause = min(pause * 2, 50_000)
            }
        }
        let cancelled = shared.state.withLock { $0.cancelled }
        let outcome: CommandRun.Outcome
        if cancelled {
            outcome = .cancelled
        } else if timedOut {
            outcome = .timedOut(seconds: timeoutSeconds)
        } else {
            switch process.exit {
            case .exited(let status)?: outcome = .exited(status)
            case .signalled(let signal)?: outcome = .signalled(signal)
            case nil: outcome = .exited(-1)
            }
        }
        return CommandRun(outcome: outcome, output: output)
    }

    /// A poll timeout for `duration`: rounded up to whole milliseconds, at most a day.
    static func milliseconds(_ duration: Duration) -> Int32 {
        let (seconds, attoseconds) = duration.components
        guard seconds < 86_400 else { return 86_400_000 }
        guard seconds >= 0, attoseconds >= 0 else { return 0 }
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(seconds) * 1000 + Int32(fraction)
    }

    /// The program to start for `argv[0]`: itself when it holds a `/`, else the first
    /// executable of that name in `PATH` (as `execvp` does); nil when there is none.
    static func resolve(_ program: String, path: String?) -> String? {
        if program.contains("/") { return program }
        guard !program.isEmpty else { return nil }
        let directories = (path ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":", omittingEmptySubsequences: false)
        for directory in directories {
            let candidate = (directory.isEmpty ? "." : String(directory)) + "/" + program
            var info = stat()
            if access(candidate, X_OK) == 0, stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                return candidate
            }
        }
        return nil
    }
}
