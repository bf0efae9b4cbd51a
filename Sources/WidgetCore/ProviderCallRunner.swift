/// Runs provider calls as tasks, for a `TimelineDriver` and whoever runs its `.start` and
/// `.cancel` effects (the dashboard's program): each call runs off the main actor on the
/// provider executor (or on the main queue for a provider on the loop), and its answer comes
/// back as one hop to the main actor, after which the task ends.
///
/// It holds only the tasks, to cancel them and to wait for them (`TimelineDriver.settle`);
/// which call runs, and which answer counts, is the driver's.
@MainActor
public final class ProviderCallRunner {
    private struct Running {
        var task: Task<Void, Never>
        var generation: UInt64
    }

    private var running: [WidgetInstanceID: Running] = [:]
    private let providerExecutor: (any TaskExecutor)?
    private let hop: @Sendable (@escaping @Sendable @MainActor () -> Void) -> Void

    init(providerExecutor: (any TaskExecutor)?, hop: @escaping @Sendable (@escaping @Sendable @MainActor () -> Void) -> Void) {
        self.providerExecutor = providerExecutor
        self.hop = hop
    }

    /// Starts `call`; `answer` gets its answer on the main actor.
    public func start(_ call: ProviderCall, answer: @escaping @Sendable @MainActor (ProviderAnswer) -> Void) {
        let request = call.request
        let provider = call.provider
        let context = call.context
        // A provider that can answer this call on the loop at once does (`timelineOnLoop`): the
        // answer is taken as a message of the main actor's own queue — no thread is woken.
        if !call.onLoop, let timeline = provider.timelineOnLoop(in: context) {
            let task = Task { @MainActor [weak self] in
                self?.ended(request)
                answer(ProviderAnswer(request: request, result: .success(timeline)))
            }
            running[request.instance] = Running(task: task, generation: request.generation)
            return
        }
        let hop = self.hop
        // An instance on the loop runs its provider on the main queue's thread from start to
        // answer: no other thread is woken.
        let executor: (any TaskExecutor)? = call.onLoop ? MainQueueExecutor.shared : providerExecutor
        let task = Task(executorPreference: executor) { [weak self] in
            let result: Result<AnyTimeline, any Error>
            do {
                result = .success(try await provider.timeline(in: context))
            } catch {
                result = .failure(error)
            }
            // One message to the main actor, and the task ends here: `await answer(…)` would
            // come back to the provider's executor afterwards, waking its thread once more
            // per reload for nothing.
            hop {
                self?.ended(request)
                answer(ProviderAnswer(request: request, result: result))
            }
        }
        running[request.instance] = Running(task: task, generation: request.generation)
    }

    /// Cancels the instance's running call (`Task.cancel()`: a provider that awaits, or checks
    /// `Task.isCancelled`, stops); its answer still comes, and is dropped by its generation.
    public func cancel(_ id: WidgetInstanceID) {
        running[id]?.task.cancel()
    }

    /// The task of the instance's running call, to wait for it.
    func task(of id: WidgetInstanceID) -> Task<Void, Never>? { running[id]?.task }

    private func ended(_ request: ReloadRequest) {
        if running[request.instance]?.generation == request.generation { running[request.instance] = nil }
    }
}
