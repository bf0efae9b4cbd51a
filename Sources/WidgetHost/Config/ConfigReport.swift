import Widgets

/// The outcome of validating a config document: the config, or every error found.
///
/// `config` is non-nil exactly when `errors` is empty. Warnings (a `refreshSeconds` raised
/// to `minimumReloadSeconds`, say) do not stop the config from being used.
public struct ConfigReport: Sendable, Equatable {
    public var config: DashboardConfig?
    public var errors: [ConfigDiagnostic]
    public var warnings: [ConfigDiagnostic]

    public init(config: DashboardConfig?, errors: [ConfigDiagnostic], warnings: [ConfigDiagnostic]) {
        self.config = config
        self.errors = errors
        self.warnings = warnings
    }
}
