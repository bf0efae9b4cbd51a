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
    public var panels: [PanelConfig]

    /// The default of `minimumReloadSeconds`.
    public static let defaultMinimumReloadSeconds = 5

    public init(theme: String? = nil, minimumReloadSeconds: Int = DashboardConfig.defaultMinimumReloadSeconds,
                dailyReloadBudget: Int? = nil, panels: [PanelConfig]) {
        self.theme = theme
        self.minimumReloadSeconds = minimumReloadSeconds
        self.dailyReloadBudget = dailyReloadBudget
        self.panels = panels
    }
}
