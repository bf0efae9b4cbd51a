import WidgetCore
import Widgets

/// Runs a gallery preview (`.previewGallery`): the sample panel's provider, made as a panel's
/// is, asked for its snapshot with `isPreview` (sample data, no waiting for the network).
@MainActor
enum GalleryPreviewer {
    /// Starts the call; `answer` gets the preview (or why there is none) on the main actor.
    static func start(_ request: GalleryRequest, widgets: BoundWidgets?,
                      answer: @escaping @MainActor @Sendable (GalleryPreview) -> Void) -> Task<Void, Never>? {
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
        let context = TimelineProviderContext(family: panel.family, size: request.size, isPreview: true)
        return Task { @MainActor in
            let entry = await provider.snapshot(in: context)
            answer(GalleryPreview(kind: panel.kind, family: panel.family, entry: entry, failure: nil))
        }
    }
}
