import BackgroundSessions
import Dispatch
import FoundationEssentials
import Glibc
import WidgetCore

/// Runs a background session manager on a state directory for the crash tests.
///
/// `session-crash-helper STATE_DIR URL [--session ID] [--new-task] [--refetch] [--pause POINT]`
/// (or `CRASH_HELPER_PAUSE=POINT`). POINT is `after-start`, `after-finish-before-completion`,
/// `after-304-before-completion` or `during-journal-write`: reaching it prints `PAUSE POINT`
/// (flushed) and waits to be killed.
/// Otherwise it resumes journalled tasks with URL, starts a task for URL with `--new-task`
/// (and with `--refetch`, once that one is delivered, a second: a conditional re-fetch),
/// prints every delegate callback as a line, and exits 0 printing `idle` once nothing runs and
/// no event waits (exit 3 when sessions are unavailable, 2 on bad usage, 1 on timeout).
enum CrashHelper {
    static func run() {
        signal(SIGPIPE, SIG_IGN)
        var args = Array(CommandLine.arguments.dropFirst())
        var sessionID = "crash-test"
        var newTask = false
        var refetch = false
        var pausePoint = getenv("CRASH_HELPER_PAUSE").map { String(cString: $0) }
        var positional: [String] = []
        while !args.isEmpty {
            let arg = args.removeFirst()
            switch arg {
            case "--session" where !args.isEmpty: sessionID = args.removeFirst()
            case "--pause" where !args.isEmpty: pausePoint = args.removeFirst()
            case "--new-task": newTask = true
            case "--refetch": refetch = true
            default: positional.append(arg)
            }
        }
        guard positional.count == 2, let url = URL(string: positional[1]) else {
            say("usage: session-crash-helper STATE_DIR URL [--session ID] [--new-task] [--refetch] [--pause POINT]", fd: 2)
            exit(2)
        }
        var hooks = BackgroundSessionManager.Hooks()
        switch pausePoint {
        case "after-start": hooks.afterTransferStarted = { _ in pause("after-start") }
        case "during-journal-write": hooks.duringJournalWrite = { pause("during-journal-write") }
        default: break
        }
        var config = CurlTransportConfiguration()
        config.noProxy = "*"
        config.retry = RetryPolicy(maxAttempts: 3, baseDelay: .milliseconds(20), maxDelay: .milliseconds(200), jitter: { 0.5 })
        do {
            let transport = try CurlTransport(configuration: config)
            let manager = try BackgroundSessionManager.open(stateDirectory: positional[0], transport: transport, hooks: hooks)
            if case .unavailable(let message) = manager.availability {
                say("unavailable: \(message)")
                exit(3)
            }
            let delegate = PrintingDelegate(pauseBeforeCompletion: pausePoint == "after-finish-before-completion",
                                            pauseAfterNotModified: pausePoint == "after-304-before-completion")
            let handler = BackgroundSessionEventsHandler(matcher: .identifier(sessionID)) { identifier, completion in
                say("handleEvents session=\(identifier)")
                delegate.completion.withLock { $0 = SendableAction(completion) }
                _ = manager.session(identifier: identifier, delegate: delegate)
            }
            for task in manager.resumeTasks(urlFor: { session, _ in session == sessionID ? url : nil }) {
                say("resumed task=\(task.taskIdentifier)")
            }
            if newTask {
                let task = manager.session(identifier: sessionID).downloadTask(with: url, taskDescription: "crash")
                say("started task=\(task.taskIdentifier)")
            }
            // Routed only now, so the lines above come first however fast a loopback transfer
            // finishes (events recorded meanwhile are kept until routed).
            manager.eventRouter = { identifier in handler.matches(identifier) ? handler : nil }
            manager.routePendingEvents()
            func waitUntilIdle() {
                let idle = DispatchSemaphore(value: 0)
                manager.whenIdle { idle.signal() }
                guard idle.wait(timeout: .now() + 60) == .success else {
                    say("timeout")
                    exit(1)
                }
            }
            waitUntilIdle()
            if refetch {
                let task = manager.session(identifier: sessionID).downloadTask(with: url, taskDescription: "crash")
                say("started task=\(task.taskIdentifier)")
                waitUntilIdle()
            }
            manager.close()
            say("idle")
            exit(0)
        } catch {
            say("error: \(error)")
            exit(1)
        }
    }

    /// Announces `point` and blocks this thread until the process is killed.
    static func pause(_ point: String) -> Never {
        say("PAUSE \(point)")
        while true { Glibc.pause() }
    }
}
