import WidgetCore

/// A widget kind the host can offer: its manifest, and how to build the widget bound to the
/// host's services. The catalogue lists one per built-in widget; everything the host shows
/// about a kind (`widgets`, `check-config`, `preview`, `--help`) comes from the manifest.
public struct WidgetDefinition: Sendable {
    /// What the host binds a widget to: its services, and the leaderboard sessions the
    /// panels use (filled as providers are made).
    public struct Binding: Sendable {
        public var services: WidgetServices
        public var leaderboardSessions: LeaderboardSessionRegistry

        public init(services: WidgetServices, leaderboardSessions: LeaderboardSessionRegistry = LeaderboardSessionRegistry()) {
            self.services = services
            self.leaderboardSessions = leaderboardSessions
        }
    }

    public var manifest: WidgetManifest
    private let build: @Sendable (Binding) -> TerminalWidget

    /// - Parameter build: makes the widget; its manifest is replaced by `manifest`, so the
    ///   two cannot disagree.
    public init(manifest: WidgetManifest, build: @escaping @Sendable (Binding) -> TerminalWidget) {
        self.manifest = manifest
        self.build = build
    }

    /// The widget bound to `binding`, carrying this definition's manifest.
    public func widget(_ binding: Binding) -> TerminalWidget {
        var widget = build(binding)
        widget.manifest = manifest
        return widget
    }
}
