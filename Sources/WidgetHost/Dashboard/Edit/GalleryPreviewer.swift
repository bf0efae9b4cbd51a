import WidgetCore
import Widgets

/// Runs a gallery preview (`.previewGallery`): the sample panel's provider, made on the loop as
/// a panel's is, asked for its snapshot with `isPreview` (sample data, no waiting for the
/// network) on the providers' executor; the answer goes to the loop's mailbox like a provider's.
@MainActor
enum GalleryPreviewer {
    /// Starts the call; `answer` gets the preview (or why there is none), on the thread that
    /// has it. Returns the call's task (nil when it answered at once).
    static func start(_ request: GalleryRequest, widgets: BoundWidgets?, executor: (any TaskExecutor)?,
                      renderingMode: WidgetRenderingMode = .fullColor, answer: @escaping @Sendable (GalleryPreview) -> Void) -> Task<Void, Never>? {
        let panel = request.panel
        guard let widget = widgets?.widget(kind: panel.kind) else {
            answer(GalleryPreview(kind: panel.kind, family: panel.family, entry: nil, failure: "unknown widget kind '\(panel.kind)'"))
            return nil
        }
        let provider: AnyTimelineProvider
        do {
            provider = try widget.makeProvider(panel.options)
        } catch {
            answer(GalleryPreview(kind: panel.kind, family: panel.family, entry: nil, failure: "\(error)"))
            return nil
        }
        let context = TimelineProviderContext(family: panel.family, size: request.size, isPreview: true, renderingMode: renderingMode)
        return snapshot(provider, in: context, kind: panel.kind, executor: executor, answer: answer)
    }

    /// The snapshot call, off the loop (the task is not the main actor's).
    nonisolated private static func snapshot(_ provider: AnyTimelineProvider, in context: TimelineProviderContext, kind: String,
                                             executor: (any TaskExecutor)?,
                                             answer: @escaping @Sendable (GalleryPreview) -> Void) -> Task<Void, Never> {
        Task(executorPreference: executor) {
            let entry = await provider.snapshot(in: context)
            answer(GalleryPreview(kind: kind, family: context.family, entry: entry, failure: nil))
        }
    }
}
