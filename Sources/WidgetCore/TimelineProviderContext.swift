import FoundationEssentials

/// What a provider knows about the request, as WidgetKit's `TimelineProviderContext`.
public struct TimelineProviderContext: Sendable, Equatable {
    /// The family of the panel that will show the entries.
    public var family: WidgetFamily
    /// The panel's content area in terminal cells.
    public var size: CellSize
    /// True for previews and snapshots: answer quickly, with sample data if needed.
    public var isPreview: Bool
    /// True when the user asked for this reload (the `r` key): exempt from reload budgets,
    /// and a provider may bypass caches.
    public var isUserInitiated: Bool
    /// The least time (seconds) before the host asks again on its own: a timeline should reach
    /// at least this far ahead, or its last entry stays on screen until the host may ask.
    public var minimumReloadInterval: TimeInterval
    /// How the host will draw the entries' colours (WidgetKit's `widgetRenderingMode`).
    public var renderingMode: WidgetRenderingMode

    public init(family: WidgetFamily, size: CellSize, isPreview: Bool = false, isUserInitiated: Bool = false,
                minimumReloadInterval: TimeInterval = 0, renderingMode: WidgetRenderingMode = .fullColor) {
        self.renderingMode = renderingMode
        self.family = family
        self.size = size
        self.isPreview = isPreview
        self.isUserInitiated = isUserInitiated
        self.minimumReloadInterval = minimumReloadInterval
    }
}

/// A size in terminal cells.
public struct CellSize: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var columns: Int
    public var rows: Int

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
    }

    public static let zero = CellSize(columns: 0, rows: 0)

    public var description: String { "\(columns)x\(rows)" }
}
