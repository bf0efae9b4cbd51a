/// What the command line asks `widgethost` to do, with typed options.
///
/// Produced by `CommandLineParser.parse(_:)`; every case's options have been checked for
/// form (sizes, dates, families), not yet against files or registered widget kinds.
public enum HostCommand: Sendable, Equatable {
    /// `widgethost [--config PATH] [--theme NAME|PATH] [--state-dir DIR] [--debug]`
    case dashboard(DashboardOptions)
    /// `widgethost snapshot …`
    case snapshot(SnapshotOptions)
    /// `widgethost preview KIND …`
    case preview(PreviewOptions)
    /// `widgethost extension run NAME/KIND …`
    case extensionRun(ExtensionRunOptions)
    /// `widgethost extension test NAME|PATH`: a conformance run (docs/extensions.md).
    case extensionTest(ExtensionTestOptions)
    /// `widgethost extension new NAME [--language L]`: a working extension folder.
    case extensionNew(ExtensionNewOptions)
    /// `widgethost check-config [--extensions-dir DIR] [PATH]`; nil path means the lookup order.
    case checkConfig(path: String?, extensionsDirectory: String? = nil)
    /// `widgethost themes`
    case themes
    /// `widgethost widgets [--extensions-dir DIR]`
    case widgets(extensionsDirectory: String? = nil)
    /// `widgethost sessions [--state-dir DIR] [--purge]`
    case sessions(SessionsOptions)
    /// `widgethost reload [KIND ...] [--all] [--state-dir DIR]`
    case reload(ReloadOptions)
    /// `widgethost config add KIND ... | remove N [--config PATH]`
    case config(ConfigEditOptions)
    /// `widgethost activity start|update|end|list …`
    case activity(ActivityOptions)
    /// `widgethost events [--since TIME] [--json]`
    case events(EventsOptions)
    /// `--help` (nil: the main help) or `help [COMMAND]`. With the command's
    /// `--extensions-dir DIR`, its kinds are listed too; with a KIND (`preview KIND --help`,
    /// `extension run NAME/KIND --help`), only that kind's options.
    case help(Subcommand?, extensionsDirectory: String? = nil, kind: String? = nil)
    /// `--version`
    case version
}
