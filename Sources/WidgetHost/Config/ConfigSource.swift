/// Where the dashboard's configuration comes from.
public enum ConfigSource: Sendable, Equatable {
    /// A config file that exists at this path.
    case file(String)
    /// No config file was found: show the default dashboard. `searched` lists the paths
    /// tried, for messages.
    case defaultDashboard(searched: [String])
}
