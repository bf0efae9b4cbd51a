import FoundationEssentials
import TerminalUI
import WidgetCore
import Widgets

// The values of a message log's config, theme, panel and action messages as JSON: the
// host's types are not `Codable` themselves (a config is only ever read through the
// validator), so each has its coded form here, next to the one place that writes and reads it.

/// A `WidgetOptions.Value`: `{"s": …}`, `{"i": …}`, `{"n": …}`, `{"b": …}`, `{"l": […]}` or
/// `{"o": {…}}`.
struct CodedOption: Codable {
    var value: WidgetOptions.Value

    init(_ value: WidgetOptions.Value) { self.value = value }

    private enum CodingKeys: String, CodingKey { case s, i, n, b, l, o }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch value {
        case .string(let s): try c.encode(s, forKey: .s)
        case .integer(let i): try c.encode(i, forKey: .i)
        case .number(let n): try c.encode(n, forKey: .n)
        case .bool(let b): try c.encode(b, forKey: .b)
        case .list(let list): try c.encode(list.map(CodedOption.init), forKey: .l)
        case .object(let members): try c.encode(members.mapValues(CodedOption.init), forKey: .o)
        }
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if let s = try c.decodeIfPresent(String.self, forKey: .s) { value = .string(s) }
        else if let i = try c.decodeIfPresent(Int.self, forKey: .i) { value = .integer(i) }
        else if let n = try c.decodeIfPresent(Double.self, forKey: .n) { value = .number(n) }
        else if let b = try c.decodeIfPresent(Bool.self, forKey: .b) { value = .bool(b) }
        else if let l = try c.decodeIfPresent([CodedOption].self, forKey: .l) { value = .list(l.map(\.value)) }
        else if let o = try c.decodeIfPresent([String: CodedOption].self, forKey: .o) { value = .object(o.mapValues(\.value)) }
        else { throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath, debugDescription: "not an option value")) }
    }

    static func encode(_ options: WidgetOptions) -> [String: CodedOption] { options.values.mapValues(CodedOption.init) }
    static func decode(_ coded: [String: CodedOption]) -> WidgetOptions { WidgetOptions(coded.mapValues(\.value)) }
}

/// A `PanelConfig`.
struct CodedPanelConfig: Codable {
    var kind: String
    var family: WidgetFamily
    var title: String?
    var options: [String: CodedOption]
    var children: [CodedPanelConfig]

    init(_ panel: PanelConfig) {
        kind = panel.kind
        family = panel.family
        title = panel.title
        options = CodedOption.encode(panel.options)
        children = panel.children.map(CodedPanelConfig.init)
    }

    var config: PanelConfig {
        PanelConfig(kind: kind, family: family, title: title, options: CodedOption.decode(options), children: children.map(\.config))
    }
}

/// A `DashboardConfig`.
struct CodedConfig: Codable {
    var theme: String?
    var minimumReloadSeconds: Int
    var dailyReloadBudget: Int?
    var panels: [CodedPanelConfig]

    init(_ config: DashboardConfig) {
        theme = config.theme
        minimumReloadSeconds = config.minimumReloadSeconds
        dailyReloadBudget = config.dailyReloadBudget
        panels = config.panels.map(CodedPanelConfig.init)
    }

    var config: DashboardConfig {
        DashboardConfig(theme: theme, minimumReloadSeconds: minimumReloadSeconds, dailyReloadBudget: dailyReloadBudget,
                        panels: panels.map(\.config))
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

/// A `PreparedPanel`: its config and, when built anew, its title, error and members' kinds,
/// titles and options. Read back, each member's widget comes from the catalogue
/// (`MessageLogCoding.widget`) and its provider is the widget's own, made from the options —
/// a replay never calls it, but the panel draws its placeholder until the log's first answer.
struct CodedPreparedPanel: Codable {
    struct Member: Codable {
        var kind: String
        var title: String
        var options: [String: CodedOption]
    }

    var config: CodedPanelConfig
    var title: String?
    var setupError: String?
    var members: [Member]?

    init(_ panel: PreparedPanel) {
        config = CodedPanelConfig(panel.config)
        title = panel.fresh?.title
        setupError = panel.fresh?.setupError
        members = panel.fresh?.members.map { Member(kind: $0.widget.kind, title: $0.title, options: CodedOption.encode($0.options)) }
    }

    func panel(coding: MessageLogCoding) throws -> PreparedPanel {
        guard let members, let title else { return PreparedPanel(config: config.config, fresh: nil) }
        var fresh = PreparedPanel.Fresh(title: title, setupError: setupError)
        for member in members {
            guard let widget = coding.widget(member.kind) else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown widget kind '\(member.kind.prefix(64))'"))
            }
            let options = CodedOption.decode(member.options)
            let provider = (try? widget.makeProvider(options)) ?? AnyTimelineProvider(NoProvider())
            fresh.members.append(PreparedPanel.Member(widget: widget, title: member.title, options: options, provider: provider))
        }
        return PreparedPanel(config: config.config, fresh: fresh)
    }
}

/// The provider of a replayed member whose widget refuses its options now: never called (a
/// replay starts no provider), its placeholder draws nothing.
struct NoProvider: TimelineProvider {
    func placeholder(in context: Context) -> MinuteEntry { MinuteEntry(date: .distantPast) }
    func snapshot(in context: Context) async -> MinuteEntry { placeholder(in: context) }
    func timeline(in context: Context) async throws -> Timeline<MinuteEntry> { Timeline(entries: [], policy: .never) }
}
