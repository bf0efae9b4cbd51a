import Extensions
import Synchronization
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
    /// One `FILE: message` line per note: an installed extension shadowed by a copy in
    /// `--extensions-dir`, as intended while developing it.
    var notes: [String] = []
    /// The extensions skipped, by name, for the status bar.
    var skipped: [String] = []

    static func discover(catalog: Catalog, explicitDirectory: String?, environment: HostEnvironment,
                         debug: Bool = false) -> ExtensionSetup {
        let found = manifests(explicitDirectory: explicitDirectory, environment: environment)
        let runtime = ExtensionRuntime(manifests: found.manifests, debug: debug, hostVersion: WidgetHostCommand.version)
        return ExtensionSetup(catalog: catalog.adding(ExtensionWidgets.definitions(runtime)), runtime: runtime,
                              problems: found.problems, notes: found.notes, skipped: found.skipped)
    }

    /// The extensions `command` reads: `--extensions-dir` (of the dashboard, `widgets`,
    /// `check-config`, `snapshot`, `preview`) searched before the XDG folder, as the dashboard
    /// does; nil for the commands that need none (`extension run` discovers its own, with
    /// `--debug`).
    static func discover(for command: HostCommand, catalog: Catalog, environment: HostEnvironment) -> ExtensionSetup? {
        let directory: String?
        switch command {
        case .version, .themes, .sessions, .reload, .extensionRun, .extensionTest, .extensionNew, .activity, .events: return nil
        case .dashboard(let options):
            return discover(catalog: catalog, explicitDirectory: options.extensionsDirectory, environment: environment,
                            debug: options.debug)
        case .widgets(let given), .checkConfig(_, let given): directory = given
        case .snapshot(let options): directory = options.extensionsDirectory
        case .preview(let options): directory = options.extensionsDirectory
        case .help(_, let given, _): directory = given
        case .config(let options): directory = options.extensionsDirectory
        }
        return discover(catalog: catalog, explicitDirectory: directory, environment: environment)
    }

    /// What a search found: the usable manifests, one line per problem and per note, and the
    /// names of the extensions skipped.
    struct Found {
        var manifests: [ExtensionManifest] = []
        var problems: [String] = []
        var notes: [String] = []
        var skipped: [String] = []
    }

    /// The usable manifests under the search path, and what was wrong with the others.
    static func manifests(explicitDirectory: String?, environment: HostEnvironment) -> Found {
        let directories = ExtensionDiscovery.directories(explicitDirectory: explicitDirectory, environment: environment.variables)
        let discovered = ExtensionDiscovery.discover(in: directories)
        var found = Found(problems: discovered.problemLines, notes: discovered.noteLines, skipped: discovered.skippedNames)
        for manifest in discovered.manifests {
            // The same rules as built-in manifests (defaults valid for their type, time zones…).
            let issues = manifest.widgets.enumerated().flatMap { index, widget in
                widget.manifest.problems.map { "\(manifest.path): widgets[\(index)]: \($0)" }
            }
            if issues.isEmpty {
                found.manifests.append(manifest)
            } else {
                found.problems += issues
                if !found.skipped.contains(manifest.name) { found.skipped.append(manifest.name) }
            }
        }
        return found
    }

    /// The problems as lines for stderr, each starting with `prefix`.
    func problemText(prefix: String) -> String {
        problems.map { "\(prefix)\($0)\n" }.joined()
    }

    /// The notes as lines, each starting with `prefix`.
    func noteText(prefix: String) -> String {
        notes.map { "\(prefix)\($0)\n" }.joined()
    }

    /// The status bar's standing word on skipped extensions, short enough for a narrow
    /// terminal and naming them (the log has the details); nil when none was skipped.
    static func notice(problems: Int, skipped: [String]) -> String? {
        guard problems > 0 else { return nil }
        switch skipped.count {
        case 0: return "extensions: \(problems == 1 ? "a problem" : "\(problems) problems"), see widgethost.log"
        case 1: return "extension \(skipped[0]) skipped: see widgethost.log"
        default: return "extensions \(skipped.joined(separator: ", ")) skipped: see widgethost.log"
        }
    }
}

/// Finding extensions again when the dashboard reloads its config: the runner keeps one and
/// calls `apply` first thing in a reload, before the config is validated.
///
/// A new extension joins the catalogue (its kinds validate and build panels); a changed
/// manifest replaces its host's (a running process is stopped, the new one starts on next
/// need); a removed or now refused one keeps its kinds, whose panels show why it cannot run.
/// Extension widgets are bound again with the dashboard's context; the session router asks
/// the widgets bound now (`DashboardSessions.configApplied`), so a new extension's downloads
/// reach it.
final class ExtensionRediscovery: Sendable {
    let explicitDirectory: String?
    let environment: HostEnvironment
    let runtime: ExtensionRuntime
    let context: WidgetContext
    /// The manifest problems logged last (at start, then at each rescan): only new ones are
    /// logged again, so saving the config does not repeat them.
    private let logged: Mutex<[String]>

    init(explicitDirectory: String?, environment: HostEnvironment, runtime: ExtensionRuntime, context: WidgetContext,
         loggedProblems: [String] = []) {
        self.explicitDirectory = explicitDirectory
        self.environment = environment
        self.runtime = runtime
        self.context = context
        logged = Mutex(loggedProblems)
    }

    /// Rescans, updates the runtime, and — when something changed — replaces the extension
    /// kinds of `catalog` and `widgets`; built-ins are kept as they are. Returns what changed
    /// (logged too).
    ///
    /// - Parameter notice: set to the status bar's word on the extensions skipped now
    ///   (`ExtensionSetup.notice`), nil when none is.
    @discardableResult
    func apply(catalog: inout Catalog, widgets: inout BoundWidgets, notice: inout String?) -> ExtensionRuntime.Changes {
        let found = ExtensionSetup.manifests(explicitDirectory: explicitDirectory, environment: environment)
        let (manifests, problems) = (found.manifests, found.problems)
        notice = ExtensionSetup.notice(problems: problems.count, skipped: found.skipped)
        let new = logged.withLock { logged in
            defer { logged = problems }
            return problems.filter { !logged.contains($0) }
        }
        for problem in new { runtime.log(.error, "skipped: \(problem)") }
        // Where each known extension's manifest is: its problems start with that file.
        let files = Dictionary(runtime.hosts.map { ($0.name, $0.manifest.path) }, uniquingKeysWith: { first, _ in first })
        // A folder without extension.json is skipped without a problem: a refused one is a
        // manifest that is there and bad.
        func refusal(_ name: String) -> String? {
            files[name].flatMap { file in problems.first { $0.hasPrefix(file + ":") } }
        }
        let changes = runtime.update(manifests) { name in
            if let refused = refusal(name) { return "the extension '\(name)' was refused at the config reload: \(refused)" }
            return "the extension '\(name)' was removed: its extension.json is gone (put it back, save the config)"
        }
        for name in changes.removed {
            runtime.log(.info, "\(name): \(refusal(name) == nil ? "removed" : "refused (see above)") at the config reload")
        }
        guard !changes.isEmpty else { return changes }  // the same kinds, bound as they are
        let definitions = ExtensionWidgets.definitions(runtime)
        catalog = Catalog(catalog.definitions.filter { !Self.isExtensionKind($0.manifest.kind) }).adding(definitions)
        let bound = Catalog(definitions).bind(context).widgets
        widgets = BoundWidgets(widgets: widgets.widgets.filter { !Self.isExtensionKind($0.kind) } + bound)
        return changes
    }

    /// Extension kinds are `NAME/KIND`; built-in kinds have no slash.
    static func isExtensionKind(_ kind: String) -> Bool { kind.contains("/") }
}
