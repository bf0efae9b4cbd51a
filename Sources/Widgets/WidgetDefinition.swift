import WidgetCore

/// A widget kind the host can offer: its manifest, what it uses of the host, and how to build
/// the widget from the host's context. The catalogue lists one per built-in widget; everything
/// the host shows about a kind (`widgets`, `check-config`, `preview`, `--help`) comes from here.
public struct WidgetDefinition: Sendable {
    public var manifest: WidgetManifest
    /// The side effects its panels have on the host (sessions, push, files, processes,
    /// network): the context `build` receives holds the handles of these only.
    public var uses: Set<WidgetUse>
    /// How its entries are written to a replayable message log and read back (nil: its
    /// answers cannot be recorded): see `entryType(_:)`.
    public private(set) var entryCodec: TimelineEntryCodec?
    private let build: @Sendable (WidgetContext) -> TerminalWidget

    /// - Parameter build: makes the widget; its manifest is replaced by `manifest`, so the
    ///   two cannot disagree.
    public init(manifest: WidgetManifest, uses: Set<WidgetUse> = [], build: @escaping @Sendable (WidgetContext) -> TerminalWidget) {
        self.manifest = manifest
        self.uses = uses
        self.build = build
    }

    /// The widget bound to `context` (granted only this definition's uses), carrying this
    /// definition's manifest.
    public func widget(_ context: WidgetContext) -> TerminalWidget {
        var widget = build(context.granting(uses))
        widget.manifest = manifest
        return widget
    }

    /// This definition with its entries recorded as `Entry`, under `name` (default: the kind):
    /// what a replayable message log needs to read its providers' answers back.
    public func entryType<Entry: TimelineEntry & Codable>(_ type: Entry.Type, name: String? = nil) -> WidgetDefinition {
        var copy = self
        copy.entryCodec = TimelineEntryCodec(name: name ?? manifest.kind, type)
        return copy
    }
}
