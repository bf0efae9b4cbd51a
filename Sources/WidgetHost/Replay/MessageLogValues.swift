import FoundationEssentials
import JSONTree
import TerminalUI
import WidgetCore
import Widgets

// The values of a message log's config, theme, panel and action messages as JSON: the
// host's types are not `Codable` themselves (a config is only ever read through the
// validator), so each has its coded form here, next to the one place that writes and reads it.

/// A `DashboardConfig` as config-file text (`{"panels": […]}`, every option written out), read
/// back through the catalogue's validator as a config file is: a log's config is held to the
/// same rules, and comes back with the same defaults.
struct CodedConfig: Codable {
    var config: DashboardConfig

    init(_ config: DashboardConfig) { self.config = config }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(Self.json(config).jsonText)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        let coding = try MessageLogCoding.from(decoder.userInfo, codingPath: decoder.codingPath)
        config = try Self.validated(text, coding: coding, codingPath: decoder.codingPath)
    }

    static func validated(_ text: String, coding: MessageLogCoding, codingPath: [any CodingKey]) throws -> DashboardConfig {
        func corrupt(_ reason: String) -> DecodingError {
            .dataCorrupted(.init(codingPath: codingPath, debugDescription: "the config: " + String(reason.prefix(200))))
        }
        guard let validator = coding.validator else { throw corrupt("no catalogue to check it with") }
        let report: ConfigReport
        do throws(ConfigLoadError) {
            report = try ConfigLoader(validator: validator).load(bytes: Array(text.utf8), path: "config")
        } catch {
            throw corrupt("\(error)")
        }
        guard let config = report.config else { throw corrupt(report.errors.first.map { "\($0)" } ?? "invalid") }
        return config
    }

    static func json(_ config: DashboardConfig) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        if let theme = config.theme { members.append(("theme", .string(theme))) }
        members.append(("minimumReloadSeconds", .integer(config.minimumReloadSeconds)))
        if let budget = config.dailyReloadBudget { members.append(("dailyReloadBudget", .integer(budget))) }
        members.append(("panels", .array(config.panels.map { json($0, child: false) })))
        return .object(JSONObject(members: members))
    }

    /// A panel as a config file writes it; a stack's children without a family (they take the
    /// stack's).
    static func json(_ panel: PanelConfig, child: Bool) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [("kind", .string(panel.kind))]
        if !child { members.append(("family", .string(panel.family.rawValue))) }
        if let title = panel.title { members.append(("title", .string(title))) }
        if panel.children.isEmpty {
            if !panel.options.values.isEmpty { members.append(("options", json(.object(panel.options.values)))) }
        } else {
            members.append(("panels", .array(panel.children.map { json($0, child: true) })))
            if !panel.smartRotate { members.append(("smartRotate", .bool(false))) }
        }
        return .object(JSONObject(members: members))
    }

    static func json(_ value: WidgetOptions.Value) -> JSONValue {
        switch value {
        case .string(let s): .string(s)
        case .integer(let i): .integer(i)
        case .number(let n): .number(n)
        case .bool(let b): .bool(b)
        case .list(let items): .array(items.map(json))
        case .object(let members): .object(JSONObject(members: members.sorted { $0.key < $1.key }.map { ($0.key, json($0.value)) }))
        }
    }
}

/// A `PanelConfig`: the panel as a config file writes it, read back as the only panel of a
/// config through the validator (`CodedConfig`).
struct CodedPanelConfig: Codable {
    var config: PanelConfig

    init(_ config: PanelConfig) { self.config = config }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(CodedConfig.json(config, child: false).jsonText)
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        let text = try c.decode(String.self)
        let coding = try MessageLogCoding.from(decoder.userInfo, codingPath: decoder.codingPath)
        let validated = try CodedConfig.validated("{\"panels\":[" + text + "]}", coding: coding, codingPath: decoder.codingPath)
        guard validated.panels.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not one panel"))
        }
        config = validated.panels[0]
    }
}

/// A `Theme`: its name, each role's colour as a theme file writes it, the attributes set.
struct CodedTheme: Codable {
    var name: String
    var colors: [String: String]
    var attributes: [String: UInt8]

    init(_ theme: Theme) {
        name = theme.name
        colors = Dictionary(uniqueKeysWithValues: StyleRole.allCases.map { ($0.rawValue, theme.color($0).description) })
        attributes = Dictionary(uniqueKeysWithValues: StyleRole.allCases.compactMap { role in
            let set = theme.attributes(role)
            return set.isEmpty ? nil : (role.rawValue, set.rawValue)
        })
    }

    var theme: Theme {
        get throws {
            var roleColors: [StyleRole: ThemeColor] = [:]
            for (name, text) in colors {
                guard let role = StyleRole(rawValue: name), let color = ThemeColor(parsing: text) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "theme colour '\(name.prefix(32))': '\(text.prefix(32))'"))
                }
                roleColors[role] = color
            }
            var roleAttributes: [StyleRole: CellAttributes] = [:]
            for (name, raw) in attributes {
                guard let role = StyleRole(rawValue: name) else {
                    throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "theme role '\(name.prefix(32))'"))
                }
                roleAttributes[role] = CellAttributes(rawValue: raw)
            }
            return Theme(name: name, colors: roleColors, attributes: roleAttributes, fallback: nil)
        }
    }
}

/// A `WidgetAction`.
struct CodedAction: Codable {
    var key: String
    var title: String
    var timeoutSeconds: Double

    init(_ action: WidgetAction) {
        key = action.key
        title = action.title
        timeoutSeconds = action.timeoutSeconds
    }

    var action: WidgetAction { WidgetAction(key: key, title: title, timeoutSeconds: timeoutSeconds) }
}

/// A `PreparedPanel`: its config and, when built anew, its title, error and members (each the
/// index of its config among the panel's members, and its title). Read back, each member's
/// widget comes from the catalogue (`MessageLogCoding.widget`), its options from the
/// validated config, and its provider is the widget's own made from them — a replay never
/// calls it, but the panel draws its placeholder until the log's first answer.
struct CodedPreparedPanel: Codable {
    struct Member: Codable {
        var index: Int
        var title: String
    }

    var config: CodedPanelConfig
    var title: String?
    var setupError: String?
    var members: [Member]?

    init(_ panel: PreparedPanel) {
        config = CodedPanelConfig(panel.config)
        title = panel.fresh?.title
        setupError = panel.fresh?.setupError
        let configs = panel.config.members
        members = panel.fresh?.members.map { member in
            // The member's config: the first of its kind with its options (a stack may hold a
            // kind twice).
            let index = configs.firstIndex { $0.kind == member.widget.kind && $0.options == member.options } ?? 0
            return Member(index: index, title: member.title)
        }
    }

    func panel(coding: MessageLogCoding) throws -> PreparedPanel {
        let panelConfig = config.config
        guard let members, let title else { return PreparedPanel(config: panelConfig, fresh: nil) }
        var fresh = PreparedPanel.Fresh(title: title, setupError: setupError)
        let configs = panelConfig.members
        for member in members {
            guard configs.indices.contains(member.index) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "member \(member.index) of \(configs.count)"))
            }
            let memberConfig = configs[member.index]
            guard let widget = coding.widget(memberConfig.kind) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown widget kind '\(memberConfig.kind.prefix(64))'"))
            }
            let provider = (try? widget.makeProvider(memberConfig.options)) ?? AnyTimelineProvider(NoProvider())
            fresh.members.append(PreparedPanel.Member(widget: widget, title: member.title, options: memberConfig.options,
                                                      provider: provider))
        }
        return PreparedPanel(config: panelConfig, fresh: fresh)
    }
}

/// The provider of a replayed member whose widget refuses its options now: never called (a
/// replay starts no provider), its placeholder draws nothing.
struct NoProvider: TimelineProvider {
    func placeholder(in context: Context) -> MinuteEntry { MinuteEntry(date: .distantPast) }
    func snapshot(in context: Context) async -> MinuteEntry { placeholder(in: context) }
    func timeline(in context: Context) async throws -> Timeline<MinuteEntry> { Timeline(entries: [], policy: .never) }
}

/// A `WidgetCenter` request as a log writes it: a kind's name, null for every kind, or
/// `{"kind": kind, "cause": "user" | "answer" | "push" | "outage"}` for a kind's reload with a cause.
struct CodedRequest: Codable {
    var request: WidgetCenter.Request

    init(_ request: WidgetCenter.Request) { self.request = request }

    private enum Keys: String, CodingKey { case kind, cause }

    func encode(to encoder: any Encoder) throws {
        switch request {
        case .kind(let kind):
            var c = encoder.singleValueContainer()
            try c.encode(kind)
        case .all:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .caused(let kind, let cause):
            var c = encoder.container(keyedBy: Keys.self)
            try c.encode(kind, forKey: .kind)
            try c.encode(cause.rawValue, forKey: .cause)
        }
    }

    init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: Keys.self) {
            let name = try keyed.decode(String.self, forKey: .cause)
            guard let cause = WidgetCenter.Cause(rawValue: name) else {
                throw DecodingError.dataCorruptedError(forKey: .cause, in: keyed, debugDescription: "unknown cause '\(name.prefix(32))'")
            }
            request = .caused(try keyed.decode(String.self, forKey: .kind), cause)
            return
        }
        let c = try decoder.singleValueContainer()
        request = c.decodeNil() ? .all : .kind(try c.decode(String.self))
    }
}
