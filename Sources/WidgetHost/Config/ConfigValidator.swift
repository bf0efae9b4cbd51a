import JSONTree
import WidgetCore
import Widgets

/// Checks a parsed config document against the manifests of the catalogue's widget kinds and
/// builds the `DashboardConfig`.
///
/// Every problem is collected, not just the first, each naming its key path
/// (`panels[2].options.refreshSeconds`). Unknown keys are errors, with a "did you mean"
/// suggestion when a known key is close. Options are decoded by `OptionDecoder` (defaults
/// filled, refresh intervals raised to `minimumReloadSeconds`).
///
/// Pure and synchronous apart from the time-zone lookup, which is injectable.
public struct ConfigValidator: Sendable {
    /// Most panels a dashboard may have.
    public static let maximumPanels = 64
    /// Longest title, in Unicode scalars.
    public static let maximumTitleLength = 200

    /// The registered kinds, in registration order (for messages and `widgethost widgets`).
    public let manifests: [WidgetManifest]
    /// The Smart Stack: its kind, default family and rules (`StackDefinition`).
    public let stack: StackDefinition
    private let byKind: [String: WidgetManifest]
    private let isKnownTimeZone: @Sendable (String) -> Bool

    /// Creates a validator for the given widget kinds.
    ///
    /// - Parameters:
    ///   - manifests: the kinds the host can build; a repeated kind keeps the first.
    ///   - stack: the container kind (the catalogue's).
    ///   - isKnownTimeZone: whether a well-formed zone name exists; nil uses the system's tz
    ///     database (`/usr/share/zoneinfo`).
    public init(manifests: [WidgetManifest], stack: StackDefinition = BuiltinWidgets.stack,
                isKnownTimeZone: (@Sendable (String) -> Bool)? = nil) {
        var byKind: [String: WidgetManifest] = [:]
        var kept: [WidgetManifest] = []
        for manifest in manifests where byKind[manifest.kind] == nil {
            byKind[manifest.kind] = manifest
            kept.append(manifest)
        }
        self.manifests = kept
        self.stack = stack
        self.byKind = byKind
        self.isKnownTimeZone = isKnownTimeZone ?? OptionType.knownTimeZones()
    }

    /// Validates a whole config document.
    public func validate(_ document: JSONValue) -> ConfigReport {
        var report = ConfigReport(config: nil, errors: [], warnings: [])
        let root = ConfigPath.root
        guard case .object(let object) = document else {
            report.errors.append(ConfigDiagnostic(path: root,
                message: "expected an object with 'panels', got \(document.shortDescription)"))
            return report
        }
        reportUnknownKeys(in: object, at: root, allowed: ["theme", "minimumReloadSeconds", "dailyReloadBudget", "panels", "pages",
                                                          "grid", "columns", "rows", "rotateSeconds", "mouse", "notify"],
                          what: "key", into: &report)

        var theme: String?
        if let value = object["theme"] {
            let path = root.appending(key: "theme")
            switch value {
            case .null: break
            case .string(let name) where !name.isEmpty:
                if let problem = OptionType.string.problem(with: value, isKnownTimeZone: isKnownTimeZone) {
                    report.errors.append(ConfigDiagnostic(path: path, message: problem))
                } else {
                    theme = name
                }
            default:
                report.errors.append(ConfigDiagnostic(path: path,
                    message: "expected a theme name or path, got \(value.shortDescription)"))
            }
        }

        var minimumReloadSeconds = DashboardConfig.defaultMinimumReloadSeconds
        if let value = object["minimumReloadSeconds"] {
            if let seconds = integer(value, in: 1...86_400, at: root.appending(key: "minimumReloadSeconds"), into: &report) {
                minimumReloadSeconds = seconds
            }
        }

        var dailyReloadBudget: Int?
        if let value = object["dailyReloadBudget"], value != .null {
            dailyReloadBudget = integer(value, in: 1...100_000, orNull: true,
                                        at: root.appending(key: "dailyReloadBudget"), into: &report)
        }

        var rotateSeconds: Int?
        if let value = object["rotateSeconds"], value != .null {
            rotateSeconds = integer(value, in: 2...86_400, orNull: true, at: root.appending(key: "rotateSeconds"), into: &report)
        }
        var mouse = true
        if let value = object["mouse"] {
            if case .bool(let on) = value { mouse = on } else {
                report.errors.append(ConfigDiagnostic(path: root.appending(key: "mouse"),
                    message: "expected true or false, got \(value.shortDescription)"))
            }
        }

        let notify = notifyConfig(object["notify"], at: root.appending(key: "notify"), into: &report)

        var panels: [PanelConfig] = []
        var pages: [PageConfig] = []
        let panelsPath = root.appending(key: "panels")
        switch (object["panels"], object["pages"]) {
        case (nil, nil):
            report.errors.append(ConfigDiagnostic(path: panelsPath, message: "missing required key: the list of panels (or 'pages')"))
        case (_?, _?):
            report.errors.append(ConfigDiagnostic(path: root.appending(key: "pages"),
                message: "give 'panels' or 'pages', not both (a page has its own 'panels')"))
        case (let value?, nil):
            panels = panelList(value, at: panelsPath, minimumReloadSeconds: minimumReloadSeconds, into: &report)
            let grid = GridTemplate.parse(object, at: root, problems: &report.errors)
            pages = [PageConfig(panels: 0..<panels.count, grid: grid)]
            checkAreas(of: panels, grid: grid, gridPresent: object.contains("grid"), at: panelsPath, into: &report)
        case (nil, let value?):
            for key in ["grid", "columns", "rows"] where object.contains(key) {
                report.errors.append(ConfigDiagnostic(path: root.appending(key: key),
                    message: "with 'pages', '\(key)' goes in each page that has a grid"))
            }
            (panels, pages) = pageList(value, at: root.appending(key: "pages"), minimumReloadSeconds: minimumReloadSeconds,
                                       into: &report)
        }
        if panels.count > Self.maximumPanels {
            report.errors.append(ConfigDiagnostic(path: panelsPath,
                message: "expected at most \(Self.maximumPanels) panels in all, got \(panels.count)"))
        }
        if rotateSeconds != nil, pages.count < 2 {
            report.warnings.append(ConfigDiagnostic(path: root.appending(key: "rotateSeconds"),
                message: "only one page: there is nothing to rotate"))
        }

        if report.errors.isEmpty {
            report.config = DashboardConfig(theme: theme, minimumReloadSeconds: minimumReloadSeconds,
                                            dailyReloadBudget: dailyReloadBudget, panels: panels, pages: pages,
                                            rotateSeconds: rotateSeconds, mouse: mouse)
            report.config?.notify = notify
        }
        return report
    }

    /// Validates options given on the command line (`preview KIND --option K=V`) as if they
    /// were a panel's `options`, and returns the panel with defaults filled in.
    ///
    /// Errors name the option as `options.NAME`. The family defaults to the kind's. Returns
    /// the panel, or nil and every error.
    public func previewPanel(kind: String, family: WidgetFamily?,
                             options: [(name: String, value: String)]) -> (panel: PanelConfig?, errors: [ConfigDiagnostic]) {
        var report = ConfigReport(config: nil, errors: [], warnings: [])
        let path = ConfigPath([.key("options")])
        guard let manifest = byKind[kind] else {
            report.errors.append(ConfigDiagnostic(path: ConfigPath([.key("kind")]),
                message: "unknown widget kind '\(kind)'" + kindHint(for: kind, allowStack: false)))
            return (nil, report.errors)
        }
        let family = family ?? manifest.defaultFamily
        if !manifest.supportedFamilies.contains(family) {
            report.errors.append(ConfigDiagnostic(path: ConfigPath([.key("family")]),
                message: "'\(kind)' does not support family '\(family)'; it supports \(Self.list(manifest.supportedFamilies))"))
        }
        var members: [(key: String, value: JSONValue)] = []
        for (name, text) in options {
            guard let spec = manifest.option(named: name) else {
                members.append((name, .string(text)))
                continue
            }
            guard let value = spec.type.value(fromCommandLine: text) else {
                report.errors.append(ConfigDiagnostic(path: path.appending(key: name),
                    message: "expected \(spec.type.expectation), got \(JSONValue.string(text).shortDescription)"))
                continue
            }
            members.append((name, value))
        }
        let filled = self.options(.object(JSONObject(members: members)), for: manifest, at: path,
                                  minimumReloadSeconds: DashboardConfig.defaultMinimumReloadSeconds, into: &report)
        guard report.errors.isEmpty, let filled else { return (nil, report.errors) }
        return (PanelConfig(kind: kind, family: family, options: WidgetOptions(filled)), [])
    }

    // MARK: Panels

    func panel(_ value: JSONValue, at path: ConfigPath, stackFamily: WidgetFamily?,
                       minimumReloadSeconds: Int, into report: inout ConfigReport) -> PanelConfig? {
        guard case .object(let object) = value else {
            report.errors.append(ConfigDiagnostic(path: path,
                message: "expected a panel object with 'kind', got \(value.shortDescription)"))
            return nil
        }
        let errorsBefore = report.errors.count
        let inStack = stackFamily != nil
        let allowed = inStack ? ["kind", "title", "options"]
            : ["kind", "family", "title", "options", "area", stack.membersKey, stack.smartRotateKey]
        // Keys with a message of their own below are left out of the generic unknown-key check.
        let specific: Set<String> = inStack ? ["family", stack.membersKey, "area", stack.smartRotateKey] : []
        reportUnknownKeys(in: object, at: path, allowed: allowed, skipping: specific, what: "key", into: &report)

        // kind
        let kindPath = path.appending(key: "kind")
        var manifest: WidgetManifest?
        var isStack = false
        switch object["kind"] {
        case nil:
            report.errors.append(ConfigDiagnostic(path: kindPath, message: "missing required key: the widget kind"))
        case .string(let kind)?:
            if kind == stack.manifest.kind {
                if inStack {
                    report.errors.append(stack.nested(at: kindPath))
                } else {
                    isStack = true
                }
            } else if let found = byKind[kind] {
                manifest = found
            } else {
                report.errors.append(ConfigDiagnostic(path: kindPath,
                    message: "unknown widget kind \(JSONValue.string(kind).shortDescription)" + kindHint(for: kind, allowStack: !inStack)))
            }
        case let other?:
            report.errors.append(ConfigDiagnostic(path: kindPath,
                message: "expected a widget kind name, got \(other.shortDescription)"))
        }

        // family
        let familyPath = path.appending(key: "family")
        var family = stackFamily ?? (isStack ? stack.manifest.defaultFamily : manifest?.defaultFamily)
        if let value = object["family"] {
            if inStack {
                report.errors.append(stack.memberFamily(at: familyPath))
            } else if case .string(let name) = value, let parsed = WidgetFamily(rawValue: name) {
                family = parsed
                if let manifest, !manifest.supportedFamilies.contains(parsed) {
                    report.errors.append(ConfigDiagnostic(path: familyPath,
                        message: "'\(manifest.kind)' does not support family '\(name)'; it supports \(Self.list(manifest.supportedFamilies))"))
                }
            } else {
                let names = WidgetFamily.allCases.map(\.rawValue)
                var message = "expected one of \(Self.list(WidgetFamily.allCases)), got \(value.shortDescription)"
                if case .string(let name) = value { message += EditDistance.hint(for: name, among: names) }
                report.errors.append(ConfigDiagnostic(path: familyPath, message: message))
            }
        } else if let stackFamily, let manifest, !manifest.supportedFamilies.contains(stackFamily) {
            report.errors.append(stack.unsupported(manifest, family: stackFamily, at: kindPath))
        }

        // title
        var title: String?
        if let value = object["title"] {
            let titlePath = path.appending(key: "title")
            if case .string(let text) = value {
                if text.unicodeScalars.count > Self.maximumTitleLength {
                    report.errors.append(ConfigDiagnostic(path: titlePath,
                        message: "expected a title of at most \(Self.maximumTitleLength) characters, got \(text.unicodeScalars.count)"))
                } else if text.unicodeScalars.contains("\u{0}") {
                    report.errors.append(ConfigDiagnostic(path: titlePath, message: "expected a title without NUL characters"))
                } else {
                    title = text
                }
            } else {
                report.errors.append(ConfigDiagnostic(path: titlePath, message: "expected a string, got \(value.shortDescription)"))
            }
        }

        // area (a page's grid)
        var area: String?
        if let value = object["area"] {
            let areaPath = path.appending(key: "area")
            if inStack {
                report.errors.append(ConfigDiagnostic(path: areaPath, message: "a stack's member has no area: give it to the stack"))
            } else if case .string(let name) = value, GridTemplate.isAreaName(name) {
                area = name
            } else {
                report.errors.append(ConfigDiagnostic(path: areaPath,
                    message: "expected an area name of the page's grid, got \(value.shortDescription)"))
            }
        }

        // options (widgets) or panels (stacks)
        var options: [String: WidgetOptions.Value] = [:]
        var children: [PanelConfig] = []
        let optionsPath = path.appending(key: "options")
        let panelsPath = path.appending(key: stack.membersKey)
        var smartRotate = true
        if let value = object[stack.smartRotateKey] {
            let rotatePath = path.appending(key: stack.smartRotateKey)
            if !isStack {
                report.errors.append(ConfigDiagnostic(path: rotatePath, message: "only a stack rotates: '\(stack.smartRotateKey)' belongs on a stack panel"))
            } else if case .bool(let flag) = value {
                smartRotate = flag
            } else {
                report.errors.append(ConfigDiagnostic(path: rotatePath, message: "expected true or false, got \(value.shortDescription)"))
            }
        }
        if isStack {
            if object.contains("options") {
                report.errors.append(stack.options(at: optionsPath))
            }
            children = stackChildren(object[stack.membersKey], at: panelsPath, family: family ?? stack.manifest.defaultFamily,
                                     minimumReloadSeconds: minimumReloadSeconds, into: &report)
        } else {
            if object.contains(stack.membersKey), !inStack {
                report.errors.append(stack.membersOutside(at: panelsPath))
            } else if object.contains(stack.membersKey) {
                report.errors.append(stack.nested(at: panelsPath))
            }
            if let manifest {
                options = self.options(object["options"] ?? .object(JSONObject()), for: manifest, at: optionsPath,
                                       minimumReloadSeconds: minimumReloadSeconds, into: &report) ?? [:]
            }
        }

        guard report.errors.count == errorsBefore, let family else { return nil }
        if isStack, let only = children.first, let fold = stack.folds(memberCount: children.count, at: panelsPath) {
            // One meaning of stack: a stack of one is its widget, here as on the dashboard.
            report.warnings.append(fold)
            return PanelConfig(kind: only.kind, family: family, title: title ?? only.title, options: only.options, area: area)
        }
        let kind = isStack ? stack.manifest.kind : manifest?.kind ?? ""
        var config = PanelConfig(kind: kind, family: family, title: title, options: WidgetOptions(options), children: children, area: area)
        config.smartRotate = smartRotate
        return config
    }

    private func stackChildren(_ value: JSONValue?, at path: ConfigPath, family: WidgetFamily,
                               minimumReloadSeconds: Int, into report: inout ConfigReport) -> [PanelConfig] {
        stack.members(value, at: path, problems: &report.errors).enumerated().compactMap { index, element in
            panel(element, at: path.appending(index: index), stackFamily: family,
                  minimumReloadSeconds: minimumReloadSeconds, into: &report)
        }
    }

    // MARK: Options

    /// Decodes a panel's `options` object; nil when it is not an object.
    private func options(_ value: JSONValue, for manifest: WidgetManifest, at path: ConfigPath,
                         minimumReloadSeconds: Int, into report: inout ConfigReport) -> [String: WidgetOptions.Value]? {
        var problems = OptionReport()
        let decoded = OptionDecoder(isKnownTimeZone: isKnownTimeZone, minimumReloadSeconds: minimumReloadSeconds)
            .decode(value, specs: manifest.options, owner: "'\(manifest.kind)'", at: path, into: &problems)
        report.errors += problems.errors
        report.warnings += problems.warnings
        if case .object(let object) = value {
            for group in manifest.exactlyOneOf {
                let given = group.filter { object[$0] != nil }
                let names = group.map { "'\($0)'" }.joined(separator: " or ")
                if given.isEmpty {
                    report.errors.append(ConfigDiagnostic(path: path, message: "missing option: give \(names)"))
                } else if given.count > 1 {
                    report.errors.append(ConfigDiagnostic(path: path.appending(key: given[1]),
                        message: "give only one of \(names), not both"))
                }
            }
        }
        return decoded
    }

    // MARK: Helpers

    private func integer(_ value: JSONValue, in range: ClosedRange<Int>, orNull: Bool = false,
                         at path: ConfigPath, into report: inout ConfigReport) -> Int? {
        if case .integer(let integer) = value, range.contains(integer) { return integer }
        let expectation = OptionType.integer(range).expectation + (orNull ? " or null" : "")
        report.errors.append(ConfigDiagnostic(path: path, message: "expected \(expectation), got \(value.shortDescription)"))
        return nil
    }

    func reportUnknownKeys(in object: JSONObject, at path: ConfigPath, allowed: [String],
                                   skipping: Set<String> = [], what: String, into report: inout ConfigReport) {
        for key in object.keys where !allowed.contains(key) && !skipping.contains(key) {
            let hint = EditDistance.suggestion(for: key, among: allowed).map { "did you mean '\($0)'?" }
                ?? "expected one of " + allowed.joined(separator: ", ")
            report.errors.append(ConfigDiagnostic(path: path.appending(key: key), message: "unknown \(what); \(hint)"))
        }
    }

    private func kindHint(for kind: String, allowStack: Bool) -> String {
        let kinds = manifests.map(\.kind) + (allowStack ? [stack.manifest.kind] : [])
        if let suggestion = EditDistance.suggestion(for: kind, among: kinds) { return "; did you mean '\(suggestion)'?" }
        return kinds.isEmpty ? "; no widget kinds are registered" : "; known kinds: " + kinds.joined(separator: ", ")
    }

    static func list(_ families: [WidgetFamily]) -> String {
        families.map(\.rawValue).joined(separator: ", ")
    }
}
