/// One page of the dashboard (DESIGN.md §9): a title and its panels, laid out by the flow or
/// by an explicit grid. A config with top-level `panels` is one page without a title.
public struct PageConfig: Sendable, Equatable {
    /// The tab's title; nil for the one page of a config without `pages`.
    public var title: String?
    /// The page's panels: their indices in `DashboardConfig.panels`, in order.
    public var panels: Range<Int>
    /// The page's explicit grid; nil: the flow (`GridLayout`).
    public var grid: GridTemplate?

    public init(title: String? = nil, panels: Range<Int>, grid: GridTemplate? = nil) {
        self.title = title
        self.panels = panels
        self.grid = grid
    }
}
