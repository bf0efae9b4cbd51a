import JSONTree

/// A validated config file: what the dashboard shows and how often it may reload.
public struct DashboardConfig: Sendable, Equatable {
    /// A theme name or path as written; nil means the default theme. Resolved by the theme
    /// layer, not here.
    public var theme: String?
    /// The shortest interval between system-initiated reloads of one panel, in seconds.
    public var minimumReloadSeconds: Int
    /// System-initiated reloads allowed per panel per day; nil means no daily limit.
    public var dailyReloadBudget: Int?
    /// Every panel, page after page.
    public var panels: [PanelConfig]
    /// The pages, each a run of `panels`; one page of them all for a config without `pages`.
    public var pages: [PageConfig]
    /// Cycle the pages every this many seconds (a wall display); nil: stay.
    public var rotateSeconds: Int?
    /// Read the mouse (clicks, the wheel); `"mouse": false` leaves it to the terminal.
    public var mouse: Bool
    /// How alerts are notified (`notify`).
    public var notify = NotifyConfig()

    /// The default of `minimumReloadSeconds`.
    public static let defaultMinimumReloadSeconds = 5

    public init(theme: String? = nil, minimumReloadSeconds: Int = DashboardConfig.defaultMinimumReloadSeconds,
                dailyReloadBudget: Int? = nil, panels: [PanelConfig], pages: [PageConfig]? = nil,
                rotateSeconds: Int? = nil, mouse: Bool = true) {
        self.theme = theme
        self.minimumReloadSeconds = minimumReloadSeconds
        self.dailyReloadBudget = dailyReloadBudget
        self.panels = panels
        self.pages = pages ?? [PageConfig(panels: 0..<panels.count)]
        self.rotateSeconds = rotateSeconds
        self.mouse = mouse
    }
}
