import Testing
import WidgetCore

/// Runs each test of a suite on threads of its own instead of Swift's cooperative pool.
///
/// The cooperative pool has one thread per core (two on a small CI machine). A test that
/// blocks — an end-to-end test waiting for tmux, a process it runs — holds one of them for
/// seconds; two at once starve every other test's `await` in the same run (a full run saw
/// unrelated async tests stall for 25 s). Under this trait the test body, synchronous or not,
/// runs on `OwnThreads.executor` (`withTaskExecutorPreference`), so it blocks only its own.
///
/// ```swift
/// @Suite("dashboard, end to end", .serialized, .onOwnThreads)
/// ```
public struct OwnThreads: SuiteTrait, TestTrait, TestScoping {
    /// Which threads.
    public enum Pool: Sendable {
        /// Two threads for tests that start real processes (tmux, the dashboard, servers):
        /// more of them at once on a 2-core machine starve those processes of CPU and their
        /// timing checks fail (as many as the cooperative pool let run before, without starving
        /// it). A test waits for a thread.
        case processes
        /// Eight threads for tests whose calls block briefly (a command run in `poll`), so they
        /// neither wait behind the process tests nor hold the cooperative pool.
        case blockingCalls
        /// Six threads (one per such suite) for tests that start extensions and await their
        /// requests: a request suspends its task (it holds no thread), so the test needs a
        /// thread back as soon as the answer comes — behind an end-to-end test blocking both
        /// `processes` threads for seconds it would miss a 1 s backoff or timeout it measures.
        case awaitingExtensions
    }

    // A test body may recurse as deep as the main thread allows: 8 MiB, like it.
    static let processes = ThreadTaskExecutor(maximumThreads: 2, name: "test-processes", stackSize: 8 << 20)
    static let blockingCalls = ThreadTaskExecutor(maximumThreads: 8, name: "test-blocking", stackSize: 8 << 20)
    static let awaitingExtensions = ThreadTaskExecutor(maximumThreads: 6, name: "test-extensions", stackSize: 8 << 20)

    /// The `awaitingExtensions` threads, for a task a test starts beside its body (`Task
    /// (executorPreference:)`: an unstructured task does not inherit the body's executor, and on
    /// the cooperative pool a loaded run starved one for 20 s before it ran).
    public static var extensionTasks: any TaskExecutor { awaitingExtensions }

    let pool: Pool

    public var isRecursive: Bool { true }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // Only around each test case (the suite itself has nothing to run).
        guard testCase != nil else { return try await function() }
        let executor = switch pool {
        case .processes: Self.processes
        case .blockingCalls: Self.blockingCalls
        case .awaitingExtensions: Self.awaitingExtensions
        }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OwnThreads {
    /// See `OwnThreads`: the process tests' two threads.
    public static var onOwnThreads: Self { OwnThreads(pool: .processes) }
    /// See `OwnThreads`: threads of the given pool.
    public static func onOwnThreads(_ pool: OwnThreads.Pool) -> Self { OwnThreads(pool: pool) }
}
