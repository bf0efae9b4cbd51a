import WidgetCore
import Widgets

/// Runs a picker's request (`.queryOptions`): the kind's `DynamicOptionsProvider` on the
/// providers' executor, never on the loop (an extension's `options` request waits up to its
/// `requestSeconds`); the answer, bounded, goes to the loop's mailbox like a provider's.
@MainActor
enum OptionsLookup {
    /// Starts the call; `answer` gets the items (or why there are none). Returns the call's
    /// task (nil when it answered at once).
    static func start(_ request: OptionsRequest, widgets: BoundWidgets?, executor: (any TaskExecutor)?,
                      answer: @escaping @Sendable (OptionsAnswer) -> Void) -> Task<Void, Never>? {
        let query = request.query
        let widget = widgets?.widget(kind: request.kind)
        var provider = widget?.optionsProvider
        // Any kind's time zone option not marked dynamic (an extension's) picks from the tz database.
        if let spec = widget?.manifest.option(named: query.option), spec.type == .timeZone, !spec.dynamic || provider == nil {
            provider = { TimeZoneNames.items($0) }
        }
        guard let provider else {
            answer(OptionsAnswer(kind: request.kind, option: query.option, query: query.query, items: [],
                                 failure: "\(request.kind) offers no values for '\(query.option)'"))
            return nil
        }
        return run(provider, query, kind: request.kind, executor: executor, answer: answer)
    }

    nonisolated private static func run(_ provider: @escaping DynamicOptionsProvider, _ query: DynamicOptionsQuery, kind: String,
                                        executor: (any TaskExecutor)?,
                                        answer: @escaping @Sendable (OptionsAnswer) -> Void) -> Task<Void, Never> {
        Task(executorPreference: executor) {
            var result = OptionsAnswer(kind: kind, option: query.option, query: query.query, items: [], failure: nil)
            do {
                result.items = DynamicOptionsBounds.bounded(try await provider(query))
            } catch {
                result.failure = DynamicOptionsBounds.line("\(error)")
            }
            // Replaced by a newer request: its answer could pass for that one's (same query).
            guard !Task.isCancelled else { return }
            answer(result)
        }
    }
}
