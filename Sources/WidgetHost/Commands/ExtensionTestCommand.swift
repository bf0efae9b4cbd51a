#if canImport(Glibc)
import Glibc
#endif
import Extensions
import FoundationEssentials
import WidgetCore
import Widgets

/// `widgethost extension test NAME|PATH`: a conformance run of one extension through the
/// host's own extension code (`ExtensionConformance`), one PASS/FAIL line per check with the
/// rule of docs/extensions.md a failure broke. Exit 0 when every check passes, 1 when one
/// fails (a refused manifest is a failed check), 2 for bad usage (no such extension).
@MainActor
enum ExtensionTestCommand {
    nonisolated static let prefix = "widgethost extension test: "

    /// - Parameter started: given the runtime before anything is launched (stopped on Ctrl-C).
    static func run(_ options: ExtensionTestOptions, environment: HostEnvironment, now: Date = Date(), io: HostIO? = nil,
                    started: (ExtensionRuntime) -> Void = { _ in }) async -> CommandOutput {
        let manifest: ExtensionManifest
        switch find(options, environment: environment) {
        case .success(let found): manifest = found
        case .failure(let output): return output
        }
        let runtime = ExtensionRuntime(manifests: [manifest], hostVersion: WidgetHostCommand.version)
        started(runtime)
        defer { runtime.stopAll() }
        let catalog = Catalog(ExtensionWidgets.definitions(runtime))
        // The headless path `extension run` takes: a temporary state directory and sessions.
        guard let binding = HeadlessBinding(catalog: catalog, now: now, io: io, variables: environment.variables),
              let host = runtime.host(named: manifest.name) else {
            return CommandOutput(exitCode: 1, standardError: prefix + "cannot create a temporary directory\n")
        }
        // The extension stops before its sessions' temporary state goes (defers run last first).
        defer {
            runtime.stopAll()
            binding.sessions.close()
        }
        var kinds: [ExtensionConformance.Kind] = []
        var refused: [ConformanceCheck] = []
        for widget in manifest.widgets {
            let found = Self.options(of: widget, in: catalog, qualified: manifest.qualifiedKind(widget.kind))
            if let values = found.options {
                kinds.append(ExtensionConformance.Kind(widget: widget, options: values, sizes: sizes(of: widget.manifest)))
            }
            if let problem = found.problem { refused.append(problem) }
        }
        let checks = refused + (await ExtensionConformance(host: host, kinds: kinds).run())
        return report(manifest.name, file: manifest.path, checks)
    }

    /// The lines for `checks` and the exit status.
    static func report(_ name: String, file: String, _ checks: [ConformanceCheck]) -> CommandOutput {
        let failed = checks.filter { !$0.passed }.count
        let text = "testing \(name) (\(file))\n" + checks.map(\.report).joined()
            + "\(PreviewCommand.counted(checks.count, "check", "checks")): \(checks.count - failed) passed, \(failed) failed\n"
        return CommandOutput(exitCode: failed == 0 ? 0 : 1, standardOutput: text)
    }

    /// The sizes asked for: each family's preview content area (as `extension run` sends),
    /// then, for the default family, the smallest panel and a wide one.
    static func sizes(of manifest: WidgetManifest) -> [(family: WidgetFamily, size: CellSize)] {
        let families = [manifest.defaultFamily] + manifest.supportedFamilies.filter { $0 != manifest.defaultFamily }
        var sizes = families.map { family in
            let panel = PreviewCommand.panelSize(family)
            return (family: family, size: CellSize(columns: panel.columns - 2, rows: panel.rows - 2))
        }
        sizes.insert((manifest.defaultFamily, CellSize(columns: 1, rows: 1)), at: 1)
        sizes.insert((manifest.defaultFamily, CellSize(columns: 158, rows: 46)), at: 2)
        return sizes
    }

    /// The kind's options with defaults filled (a required option without a default takes
    /// its `example`), or a failed check saying why none can be made.
    static func options(of widget: ExtensionWidgetManifest, in catalog: Catalog, qualified: String) -> (options: WidgetOptions?, problem: ConformanceCheck?) {
        let given = widget.manifest.options.compactMap { option in
            option.required && option.defaultValue == nil ? option.example.map { (name: option.name, value: $0) } : nil
        }
        let checked = catalog.validator().previewPanel(kind: qualified, family: nil, options: given)
        guard let panel = checked.panel else {
            let problems = ConfigDiagnostic.lines(checked.errors, prefix: "").split(separator: "\n").joined(separator: "; ")
            return (nil, ConformanceCheck(name: "options \(widget.kind)", passed: false,
                                          detail: "no options to test with (give required options an \"example\"): \(problems)",
                                          rule: ConformanceRule.manifest))
        }
        return (panel.options, nil)
    }

    // MARK: Finding the extension

    /// NAME as every command finds it (`--extensions-dir`, then the XDG folder), else the
    /// folder NAME or PATH (anything with a `/`). A refused manifest is a report (exit 1).
    static func find(_ options: ExtensionTestOptions, environment: HostEnvironment) -> Result<ExtensionManifest, CommandOutput> {
        let target = options.target
        var folder: String?
        if target.contains("/") || target == "." || target == ".." {
            folder = target
        } else {
            let found = ExtensionSetup.manifests(explicitDirectory: options.extensionsDirectory, environment: environment)
            if let manifest = found.manifests.first(where: { $0.name == target }) { return .success(manifest) }
            let problems = found.problems.filter { $0.contains("/\(target)/extension.json:") }
            if !problems.isEmpty { return .failure(refusal(target, problems)) }
            guard isExtensionFolder(target) else {
                let names = found.manifests.map(\.name)
                let hint = EditDistance.suggestion(for: target, among: names).map { "; did you mean '\($0)'?" }
                    ?? (names.isEmpty ? " (none found; see --extensions-dir)" : " (found: \(names.joined(separator: ", ")))")
                return .failure(usage("no extension named '\(String(target.prefix(64)))' and no folder ./\(String(target.prefix(64)))/extension.json\(hint)"))
            }
            folder = target
        }
        guard let folder, let resolved = realpath(folder, nil) else {
            return .failure(usage("cannot find the folder '\(String(target.prefix(200)))': \(String(cString: strerror(errno)))"))
        }
        let directory = String(cString: resolved)
        free(resolved)
        guard isExtensionFolder(directory), directory != "/" else {
            return .failure(usage("'\(String(target.prefix(200)))' is not an extension's folder: it has no extension.json"))
        }
        let parent = directory.lastIndex(of: "/").map { String(directory[..<$0]) }.map { $0.isEmpty ? "/" : $0 } ?? "."
        let found = ExtensionSetup.manifests(explicitDirectory: parent, environment: HostEnvironment(variables: [:]))
        if let manifest = found.manifests.first(where: { $0.directory == parent + "/" + basename(directory) }) {
            return .success(manifest)
        }
        let file = directory + "/extension.json"
        let problems = found.problems.filter { $0.hasPrefix(file + ":") }
        return .failure(refusal(basename(directory), problems.isEmpty ? ["\(file): not read (another extension of that name comes first in \(parent))"] : problems))
    }

    private static func refusal(_ name: String, _ problems: [String]) -> CommandOutput {
        report(name, file: "refused", [ConformanceCheck(name: "manifest", passed: false, detail: problems.joined(separator: "; "),
                                                        rule: ConformanceRule.manifest)])
    }

    private static func usage(_ message: String) -> CommandOutput {
        CommandOutput(exitCode: 2, standardError: prefix + message + "\nsee 'widgethost extension --help'\n")
    }

    private static func isExtensionFolder(_ path: String) -> Bool {
        access(path + "/extension.json", F_OK) == 0
    }

    private static func basename(_ path: String) -> String {
        path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
    }
}
