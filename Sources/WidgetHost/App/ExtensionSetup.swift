import Extensions
import WidgetCore
import Widgets

/// The extensions of one run: discovered from `--extensions-dir` and
/// `$XDG_CONFIG_HOME/widgethost/extensions`, checked (the parser's strict reading, then the
/// host's manifest rules for each kind), and added to the catalogue as `NAME/KIND`.
///
/// Nothing is launched here: `widgets`, `check-config` and placeholders need only manifests.
struct ExtensionSetup {
    var catalog: Catalog
    var runtime: ExtensionRuntime
    /// One `FILE: key.path: message` line per problem; each bad extension was skipped.
    var problems: [String]

    static func discover(catalog: Catalog, explicitDirectory: String?, environment: HostEnvironment,
                         debug: Bool = false) -> ExtensionSetup {
        let directories = ExtensionDiscovery.directories(explicitDirectory: explicitDirectory, environment: environment.variables)
        let found = ExtensionDiscovery.discover(in: directories)
        var problems = found.problemLines
        var kept: [ExtensionManifest] = []
        for manifest in found.manifests {
            // The same rules as built-in manifests (defaults valid for their type, time zones…).
            let issues = manifest.widgets.enumerated().flatMap { index, widget in
                widget.manifest.problems.map { "\(manifest.path): widgets[\(index)]: \($0)" }
            }
            if issues.isEmpty { kept.append(manifest) } else { problems += issues }
        }
        let runtime = ExtensionRuntime(manifests: kept, debug: debug, hostVersion: WidgetHostCommand.version)
        return ExtensionSetup(catalog: catalog.adding(ExtensionWidgets.definitions(runtime)), runtime: runtime,
                              problems: problems)
    }

    /// The extensions `command` reads: `--extensions-dir` (of the dashboard, `widgets`,
    /// `check-config`, `snapshot`, `preview`) searched before the XDG folder, as the dashboard
    /// does; nil for the commands that need none (`extension run` discovers its own, with
    /// `--debug`).
    static func discover(for command: HostCommand, catalog: Catalog, environment: HostEnvironment) -> ExtensionSetup? {
        let directory: String?
        switch command {
        case .version, .themes, .sessions, .extensionRun: return nil
        case .dashboard(let options):
            return discover(catalog: catalog, explicitDirectory: options.extensionsDirectory, environment: environment,
                            debug: options.debug)
        case .widgets(let given), .checkConfig(_, let given): directory = given
        case .snapshot(let options): directory = options.extensionsDirectory
        case .preview(let options): directory = options.extensionsDirectory
        case .help: directory = nil
        }
        return discover(catalog: catalog, explicitDirectory: directory, environment: environment)
    }

    /// The problems as lines for stderr, each starting with `prefix`.
    func problemText(prefix: String) -> String {
        problems.map { "\(prefix)\($0)\n" }.joined()
    }
}
