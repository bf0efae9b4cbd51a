import Synchronization

/// Runs provider calls as tasks, for a `TimelineDriver` and whoever runs its `.start` and
/// `.cancel` effects (the dashboard's program): each call runs off the main actor on the
/// provider executor (or on the main queue for a provider on the loop), and its answer is
/// handed to `answer` on the thread that produced it — the program posts it to its loop's
/// mailbox (`LoopMailbox`) — after which the task ends.
///
/// It holds only the tasks, to cancel them and to wait for them; which call runs, and which
/// answer counts, is the driver's, which says when an answer was taken (`ended(_:)`).
@MainActor
public final class ProviderCallRunner {
    private struct Running {
        var task: Task<Void, Never>?
        var generation: UInt64
    }

    private var running: [WidgetInstanceID: Running] = [:]
    private let providerExecutor: (any TaskExecutor)?
    /// Answers handed over so far (any thread), so a wait knows whether it brought any.
    private let answersGiven = AnswerCount()

    public init(providerExecutor: (any TaskExecutor)?) {
        self.providerExecutor = providerExecutor
    }

    /// Starts `call`; `answer` gets its answer once, on the thread that has it (the loop's own
    /// for a provider that answers on the loop).
    public func start(_ call: ProviderCall, answer give: @escaping @Sendable (ProviderAnswer) -> Void) {
        let answer: @Sendable (ProviderAnswer) -> Void = { [answersGiven] in
            answersGiven.value.withLock { $0 += 1 }
            give($0)
        }
        let request = call.request
        let provider = call.provider
        let context = call.context
        running[request.instance] = Running(task: nil, generation: request.generation)
        // A provider that can answer this call on the loop at once does (`timelineOnLoop`): the
        // answer goes to the mailbox now — no task, no thread woken.
        if !call.onLoop, let timeline = provider.timelineOnLoop(in: context) {
            answer(ProviderAnswer(request: request, result: .success(timeline)))
            return
        }
        // An instance on the loop runs its provider on the main queue's thread from start to
        // answer: no other thread is woken.
        let executor: (any TaskExecutor)? = call.onLoop ? MainQueueExecutor.shared : providerExecutor
        let task = Task(executorPreference: executor) {
            let result: Result<AnyTimeline, any Error>
            do {
                result = .success(try await provider.timeline(in: context))
            } catch {
                result = .failure(error)
            }
            // One message for the loop, and the task ends here: `await` on the main actor would
            // come back to the provider's executor afterwards, waking its thread once more per
            // reload for nothing.
            answer(ProviderAnswer(request: request, result: result))
        }
        running[request.instance] = Running(task: task, generation: request.generation)
    }

    /// Cancels the instance's running call (`Task.cancel()`: a provider that awaits, or checks
    /// `Task.isCancelled`, stops); its answer still comes, and is dropped by its generation.
    public func cancel(_ id: WidgetInstanceID) {
        running[id]?.task?.cancel()
    }

    /// The answer of `request` was taken: its task is forgotten.
    public func ended(_ request: ReloadRequest) {
        if running[request.instance]?.generation == request.generation { running[request.instance] = nil }
    }

    /// Answers handed over so far (from any thread): a wait compares it before and after.
    public var answersGivenCount: UInt64 { answersGiven.value.withLock { $0 } }

    /// Waits until the calls of `ids` (all when nil) that run now have answered: their answers
    /// are then in the mailbox.
    public func waitForRunningCalls(of ids: Set<WidgetInstanceID>? = nil) async {
        for task in running.filter({ ids?.contains($0.key) ?? true }).compactMap(\.value.task) { await task.value }
    }
}

/// A count of answers given, shared with the tasks that give them.
private final class AnswerCount: Sendable {
    let value = Mutex<UInt64>(0)
}
